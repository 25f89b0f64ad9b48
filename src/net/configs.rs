//! What `configs` asks of a cluster, as Kafka's `Admin` asks it: a resource's configs from
//! DescribeConfigs, changes through IncrementalAlterConfigs; each sent where Kafka's admin
//! client sends it (a broker's own configs to that broker, the rest to any broker).

use kafka_protocol::messages::describe_configs_request::DescribeConfigsResource;
use kafka_protocol::messages::incremental_alter_configs_request::{
    AlterConfigsResource, AlterableConfig,
};
use kafka_protocol::messages::{DescribeConfigsRequest, IncrementalAlterConfigsRequest};
use kafka_protocol::protocol::StrBytes;

use crate::datadir::config::{ConfigEntry, ConfigSource, ConfigSynonym};

use super::cluster::Cluster;
use super::errors::KafkaError;
use super::NetError;

/// A config resource: Kafka's `ConfigResource` (the kinds kafkit describes and alters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigResource {
    /// A topic, by name.
    Topic(String),
    /// A broker, by id; `None`: the cluster-wide default of every broker (Kafka's entity
    /// name `""`).
    Broker(Option<i32>),
}

impl ConfigResource {
    /// Kafka's `ConfigResource.Type` id on the wire.
    fn wire_type(&self) -> i8 {
        match self {
            ConfigResource::Topic(_) => 2,
            ConfigResource::Broker(_) => 4,
        }
    }

    /// The resource's name on the wire.
    fn wire_name(&self) -> String {
        match self {
            ConfigResource::Topic(name) => name.clone(),
            ConfigResource::Broker(Some(id)) => id.to_string(),
            ConfigResource::Broker(None) => String::new(),
        }
    }

    /// The source of the values set on this resource itself (what `--describe` without
    /// `--all` shows): Kafka's `ConfigCommand.getResourceConfig` filter.
    pub fn dynamic_source(&self) -> ConfigSource {
        match self {
            ConfigResource::Topic(_) => ConfigSource::DynamicTopicConfig,
            ConfigResource::Broker(Some(_)) => ConfigSource::DynamicBrokerConfig,
            ConfigResource::Broker(None) => ConfigSource::DynamicDefaultBrokerConfig,
        }
    }
}

/// One change of an IncrementalAlterConfigs request (Kafka's `AlterConfigOp`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AlterConfigOp {
    /// Sets a config to a value.
    Set(String, String),
    /// Removes a config (back to its default).
    Delete(String),
}

/// `DescribeConfigsResponse.ConfigSource`'s ids, as the admin client names them.
fn source(id: i8) -> ConfigSource {
    match id {
        1 => ConfigSource::DynamicTopicConfig,
        2 => ConfigSource::DynamicBrokerConfig,
        3 => ConfigSource::DynamicDefaultBrokerConfig,
        4 => ConfigSource::StaticBrokerConfig,
        5 => ConfigSource::DefaultConfig,
        6 => ConfigSource::DynamicBrokerLoggerConfig,
        7 => ConfigSource::DynamicClientMetricsConfig,
        8 => ConfigSource::DynamicGroupConfig,
        _ => ConfigSource::Unknown,
    }
}

/// A value as Java's string concatenation shows it (a sensitive value is `null`).
fn shown(value: Option<&StrBytes>) -> String {
    value.map_or_else(|| "null".to_string(), |v| v.as_str().to_string())
}

fn answered(code: i16, message: Option<&StrBytes>) -> Result<(), NetError> {
    match KafkaError::from_code(code, message.map(StrBytes::as_str)) {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

impl Cluster {
    /// Runs `call` on the broker a request about `resource` goes to: the broker itself for
    /// one broker's configs (waiting, as Kafka's admin client does, for it to appear in the
    /// metadata: `Timed out waiting for a node assignment` when it never does), any broker
    /// otherwise.
    fn on_resource_broker<T>(
        &mut self,
        resource: &ConfigResource,
        call: &str,
        mut f: impl FnMut(&mut super::Connection) -> Result<T, NetError>,
    ) -> Result<T, NetError> {
        self.with_retries(|c| match resource {
            ConfigResource::Broker(Some(id)) => {
                if !c.broker_ids().contains(id) {
                    c.metadata(Some(&[]), false, call)?;
                }
                if !c.broker_ids().contains(id) {
                    // Retried (no unreachable broker named) until the call's deadline.
                    return Err(NetError::Timeout {
                        message: format!("Timed out waiting for a node assignment. Call: {call}"),
                        unreachable: None,
                    });
                }
                f(c.node(*id)?)
            }
            _ => f(c.any(call)?),
        })
    }

    /// The configs of `resource`, sorted by name, with their synonyms when `synonyms`
    /// (Kafka's `describeConfigs` with `includeSynonyms`). The broker's own error for the
    /// resource (an unknown topic) is returned as it is.
    pub fn describe_configs(
        &mut self,
        resource: &ConfigResource,
        synonyms: bool,
    ) -> Result<Vec<ConfigEntry>, NetError> {
        let request = DescribeConfigsRequest::default()
            .with_resources(vec![DescribeConfigsResource::default()
                .with_resource_type(resource.wire_type())
                .with_resource_name(StrBytes::from_string(resource.wire_name()))])
            .with_include_synonyms(synonyms);
        let response =
            self.on_resource_broker(resource, "describeConfigs", |conn| conn.call(&request))?;
        let mut out = Vec::new();
        for result in response.results {
            answered(result.error_code, result.error_message.as_ref())?;
            for config in result.configs {
                out.push(ConfigEntry {
                    name: config.name.as_str().to_string(),
                    value: shown(config.value.as_ref()),
                    source: source(config.config_source),
                    sensitive: config.is_sensitive,
                    synonyms: config
                        .synonyms
                        .iter()
                        .map(|s| ConfigSynonym {
                            name: s.name.as_str().to_string(),
                            value: shown(s.value.as_ref()),
                            source: source(s.source),
                        })
                        .collect(),
                });
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Applies `ops` to `resource` in one IncrementalAlterConfigs request (Kafka's
    /// `incrementalAlterConfigs`); the broker's refusal (an invalid value) comes back as it
    /// is, and a broker without the API as [`NetError::UnsupportedApi`].
    pub fn incremental_alter_configs(
        &mut self,
        resource: &ConfigResource,
        ops: &[AlterConfigOp],
    ) -> Result<(), NetError> {
        const SET: i8 = 0;
        const DELETE: i8 = 1;
        let configs = ops
            .iter()
            .map(|op| {
                let (name, operation, value) = match op {
                    AlterConfigOp::Set(name, value) => (name, SET, Some(value.clone())),
                    AlterConfigOp::Delete(name) => (name, DELETE, None),
                };
                AlterableConfig::default()
                    .with_name(StrBytes::from_string(name.clone()))
                    .with_config_operation(operation)
                    .with_value(value.map(StrBytes::from_string))
            })
            .collect();
        let request = IncrementalAlterConfigsRequest::default().with_resources(vec![
            AlterConfigsResource::default()
                .with_resource_type(resource.wire_type())
                .with_resource_name(StrBytes::from_string(resource.wire_name()))
                .with_configs(configs),
        ]);
        let response = self.on_resource_broker(resource, "incrementalAlterConfigs", |conn| {
            conn.call(&request)
        })?;
        response
            .responses
            .iter()
            .try_for_each(|r| answered(r.error_code, r.error_message.as_ref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_the_admin_clients_names() {
        let names: Vec<&str> = (0..=9).map(|id| source(id).name()).collect();
        assert_eq!(
            names,
            [
                "UNKNOWN",
                "DYNAMIC_TOPIC_CONFIG",
                "DYNAMIC_BROKER_CONFIG",
                "DYNAMIC_DEFAULT_BROKER_CONFIG",
                "STATIC_BROKER_CONFIG",
                "DEFAULT_CONFIG",
                "DYNAMIC_BROKER_LOGGER_CONFIG",
                "DYNAMIC_CLIENT_METRICS_CONFIG",
                "DYNAMIC_GROUP_CONFIG",
                "UNKNOWN",
            ]
        );
        assert_eq!(
            ConfigResource::Broker(None).dynamic_source(),
            ConfigSource::DynamicDefaultBrokerConfig
        );
        assert_eq!(ConfigResource::Broker(None).wire_name(), "");
    }

    #[test]
    fn an_api_the_broker_lacks_is_kafkas_unsupported_version() {
        let absent = NetError::UnsupportedApi {
            api: "CREATE_PARTITIONS".into(),
            min: 0,
            max: 3,
            broker: None,
        };
        assert_eq!(
            absent.to_string(),
            "The node does not support CREATE_PARTITIONS"
        );
        let too_old = NetError::UnsupportedApi {
            api: "DESCRIBE_CONFIGS".into(),
            min: 1,
            max: 4,
            broker: Some((0, 0)),
        };
        assert_eq!(
            too_old.to_string(),
            "The node does not support DESCRIBE_CONFIGS with version in range [1,4]. The supported range is [0,0]."
        );
    }
}
