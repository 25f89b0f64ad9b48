# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kafkit_global_optspecs
    string join \n data-dir= output= h/help V/version
end

function __fish_kafkit_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kafkit_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kafkit_using_subcommand
    set -l cmd (__fish_kafkit_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kafkit -n "__fish_kafkit_needs_command" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -F
complete -c kafkit -n "__fish_kafkit_needs_command" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_needs_command" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "generate" -d 'Write shell completions and man pages (used to refresh `completions/` and `man/`)'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kafkit -n "__fish_kafkit_using_subcommand generate" -l out-dir -d 'The directory that receives `completions/` and `man/`' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand generate" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand generate" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand generate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand generate" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from generate help" -f -a "generate" -d 'Write shell completions and man pages (used to refresh `completions/` and `man/`)'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from generate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
