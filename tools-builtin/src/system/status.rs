use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

/// The host's name and version, for `get_system_status`. Optional: a host
/// that puts none in its context is reported as unknown.
#[derive(Debug, Clone, Serialize)]
pub struct HostInfo {
    /// The host program's name.
    pub name: String,
    /// Its version.
    pub version: String,
}

/// Report the versions of the host and the toolkit, the operating system
/// family, the CPU architecture and the time zone.
///
/// Never reports paths, host names, users or addresses.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "system",
    effect = "read",
    data = "internal",
    requires_admin,
    content = "trusted"
)]
#[serde(deny_unknown_fields)]
pub struct GetSystemStatus {}

impl Execute for GetSystemStatus {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let host = cx.service::<HostInfo>().ok();
        let status = json!({
            "host": host,
            "toolkit_version": env!("CARGO_PKG_VERSION"),
            "os_family": std::env::consts::FAMILY,
            "os": std::env::consts::OS,
            "architecture": std::env::consts::ARCH,
            "time_zone": time_zone(
                std::env::var("TZ").ok(),
                std::fs::read_link("/etc/localtime").ok().map(|p| p.to_string_lossy().into_owned()),
            ),
        });
        Ok(ToolOutput::json(status))
    }
}

/// The IANA zone name, from `TZ` or the `/etc/localtime` link.
///
/// Only the zone name leaves the host: a `TZ` holding a path (`:/etc/...`)
/// or anything that is not a plain zone name is reported as unknown, and of
/// the link target only the part after `zoneinfo/` is kept.
fn time_zone(tz: Option<String>, localtime_target: Option<String>) -> String {
    let from_tz = tz.filter(|tz| is_zone_name(tz));
    let from_link = localtime_target.and_then(|target| {
        let (_, zone) = target.split_once("zoneinfo/")?;
        is_zone_name(zone).then(|| zone.to_owned())
    });
    from_tz
        .or(from_link)
        .unwrap_or_else(|| "unknown".to_owned())
}

fn is_zone_name(zone: &str) -> bool {
    !zone.is_empty()
        && zone.len() <= 64
        && zone.as_bytes()[0].is_ascii_alphabetic()
        && !zone.contains("..")
        && zone
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/_+-".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::time_zone;

    #[test]
    fn time_zone_prefers_tz_and_keeps_only_the_zone_name() {
        assert_eq!(
            time_zone(Some("Europe/Berlin".into()), None),
            "Europe/Berlin"
        );
        assert_eq!(
            time_zone(None, Some("/usr/share/zoneinfo/America/New_York".into())),
            "America/New_York"
        );
    }

    #[test]
    fn time_zone_never_reports_a_path() {
        assert_eq!(time_zone(Some(":/etc/localtime".into()), None), "unknown");
        assert_eq!(time_zone(Some("/home/ada/tz".into()), None), "unknown");
        assert_eq!(
            time_zone(None, Some("/opt/custom/localtime".into())),
            "unknown"
        );
        assert_eq!(
            time_zone(None, Some("/usr/share/zoneinfo/../../../etc/x".into())),
            "unknown"
        );
    }
}
