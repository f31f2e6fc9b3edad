//! Where a webhook may send, checked as a careful forge checks it: when it
//! is set, and again at every delivery on the addresses its name resolves
//! to then, so no name (nor a record changed after the check) leads round
//! the rule. The delivery then connects to the address checked, pinned,
//! not to what a second look-up might say.
//!
//! - Never: link-local addresses (169.254.0.0/16, where cloud metadata
//!   services answer, and fe80::/10), their IPv4-mapped and NAT64 forms,
//!   the unspecified, broadcast and multicast addresses, and the known
//!   names of metadata services.
//! - Only with the `webhook_targets` setting's `allow_local_network`:
//!   loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7) and shared
//!   (100.64/10) addresses, and `localhost`.
//! - Any other address.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use tool_core::BoxFuture;

use crate::store::WebhookTargets;

/// Names of cloud metadata services, refused whatever they resolve to.
const METADATA_NAMES: [&str; 5] = [
    "metadata",
    "metadata.google.internal",
    "metadata.goog",
    "instance-data",
    "instance-data.ec2.internal",
];

/// How far an address is from the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Link-local, metadata, unspecified, broadcast, multicast.
    Never,
    /// Loopback, private, shared.
    Local,
    /// Anything else.
    Public,
}

/// Looks up a webhook's host name: the system's resolver, or a test's.
pub trait WebhookResolver: Send + Sync + std::fmt::Debug {
    /// The addresses `host` resolves to, for `port`.
    fn resolve<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> BoxFuture<'a, std::io::Result<Vec<SocketAddr>>>;
}

/// The system's resolver (`getaddrinfo`, through Tokio).
#[derive(Debug, Default)]
pub struct SystemResolver;

impl WebhookResolver for SystemResolver {
    fn resolve<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> BoxFuture<'a, std::io::Result<Vec<SocketAddr>>> {
        Box::pin(async move { Ok(tokio::net::lookup_host((host, port)).await?.collect()) })
    }
}

/// Whether `url`'s host may receive webhooks, as far as can be told
/// without looking its name up: an address is checked, a name is checked
/// against the metadata names and `localhost`. Why not, if not.
pub fn check_url(url: &reqwest::Url, policy: WebhookTargets) -> Result<(), String> {
    match host_of(url) {
        Some(Host::Address(ip)) => check_address(ip, policy),
        Some(Host::Name(name)) => check_name(name, policy),
        None => Err("the webhook URL names no host".to_owned()),
    }
}

/// A URL's host: an address, or a name to look up.
enum Host<'a> {
    Address(IpAddr),
    Name(&'a str),
}

fn host_of(url: &reqwest::Url) -> Option<Host<'_>> {
    let host = url.host_str()?;
    // An IPv6 address comes in brackets.
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    Some(match bare.parse::<IpAddr>() {
        Ok(ip) => Host::Address(ip),
        Err(_) => Host::Name(host),
    })
}

/// The addresses a delivery to `url` may connect to, looked up now by
/// `resolver` and every one of them checked (one refused refuses all: a
/// name may not mix a public address with a forbidden one); why not, if
/// not.
pub async fn resolve_checked(
    url: &reqwest::Url,
    policy: WebhookTargets,
    resolver: &dyn WebhookResolver,
) -> Result<Vec<SocketAddr>, String> {
    check_url(url, policy)?;
    let port = url.port_or_known_default().unwrap_or(80);
    let addresses = match host_of(url) {
        Some(Host::Address(ip)) => vec![SocketAddr::new(ip, port)],
        Some(Host::Name(name)) => resolver
            .resolve(name, port)
            .await
            .map_err(|error| format!("`{name}` could not be looked up: {error}"))?,
        None => Vec::new(),
    };
    if addresses.is_empty() {
        return Err("the webhook's host has no address".to_owned());
    }
    for address in &addresses {
        check_address(address.ip(), policy)?;
    }
    Ok(addresses)
}

fn check_name(name: &str, policy: WebhookTargets) -> Result<(), String> {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    if METADATA_NAMES.contains(&name.as_str()) {
        return Err(format!(
            "`{name}` is a cloud metadata service: webhooks are never sent there"
        ));
    }
    let local = name == "localhost" || name.ends_with(".localhost");
    if local && !policy.allow_local_network {
        return Err(local_refusal(&name));
    }
    Ok(())
}

/// Whether `ip` may receive webhooks under `policy`; why not, if not.
pub fn check_address(ip: IpAddr, policy: WebhookTargets) -> Result<(), String> {
    match reach(ip) {
        Reach::Never => Err(format!(
            "{ip} is a link-local, metadata or otherwise unroutable address: webhooks are never sent there"
        )),
        Reach::Local if !policy.allow_local_network => Err(local_refusal(&ip.to_string())),
        _ => Ok(()),
    }
}

fn local_refusal(what: &str) -> String {
    format!(
        "{what} is on the host's own or a private network: webhooks go there only when an \
         administrator allows it (setting `webhook_targets`, `allow_local_network`)"
    )
}

fn reach(ip: IpAddr) -> Reach {
    match ip {
        IpAddr::V4(v4) => reach_v4(v4),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => reach_v4(v4),
            None => reach_v6(v6),
        },
    }
}

/// The IPv4 address an IPv6 one carries: IPv4-mapped (`::ffff:a.b.c.d`)
/// or the NAT64 well-known prefix (`64:ff9b::a.b.c.d`).
fn embedded_v4(v6: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = v6.to_ipv4_mapped() {
        return Some(v4);
    }
    let segments = v6.segments();
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        let [.., a, b, c, d] = v6.octets();
        return Some(Ipv4Addr::new(a, b, c, d));
    }
    None
}

fn reach_v4(v4: Ipv4Addr) -> Reach {
    let [a, b, ..] = v4.octets();
    let shared = a == 100 && (64..128).contains(&b);
    if v4.is_link_local() || v4.is_unspecified() || v4.is_broadcast() || v4.is_multicast() || a == 0
    {
        Reach::Never
    } else if v4.is_loopback() || v4.is_private() || shared {
        Reach::Local
    } else {
        Reach::Public
    }
}

fn reach_v6(v6: Ipv6Addr) -> Reach {
    let first = v6.segments()[0];
    let link_local = first & 0xffc0 == 0xfe80;
    let unique_local = first & 0xfe00 == 0xfc00;
    if link_local || v6.is_unspecified() || v6.is_multicast() {
        Reach::Never
    } else if v6.is_loopback() || unique_local {
        Reach::Local
    } else {
        Reach::Public
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLOSED: WebhookTargets = WebhookTargets {
        allow_local_network: false,
    };
    const OPEN: WebhookTargets = WebhookTargets {
        allow_local_network: true,
    };

    fn allowed(url: &str, policy: WebhookTargets) -> bool {
        check_url(&reqwest::Url::parse(url).unwrap(), policy).is_ok()
    }

    #[test]
    fn metadata_and_link_local_addresses_are_refused_whatever_the_setting() {
        for url in [
            "http://169.254.169.254/latest/meta-data/",
            "http://[::ffff:169.254.169.254]/",
            "http://[64:ff9b::a9fe:a9fe]/",
            "http://[fe80::1]/",
            "http://0.0.0.0/",
            "http://metadata.google.internal/computeMetadata/v1/",
            "http://METADATA./",
        ] {
            assert!(!allowed(url, OPEN), "{url}");
            assert!(!allowed(url, CLOSED), "{url}");
        }
    }

    #[test]
    fn the_local_network_only_when_allowed() {
        for url in [
            "http://127.0.0.1:8080/",
            "http://[::1]/",
            "http://10.1.2.3/",
            "http://172.20.0.1/",
            "http://192.168.1.1/",
            "http://100.64.0.1/",
            "http://[fd00::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://localhost:9/",
            "http://api.localhost/",
        ] {
            assert!(!allowed(url, CLOSED), "{url}");
            assert!(allowed(url, OPEN), "{url}");
        }
        assert!(allowed("https://hooks.example.com/x", CLOSED));
        assert!(allowed("http://93.184.215.14/", CLOSED));
    }
}
