//! Sign-in held back against guessing, on every backend and across two
//! app layers over one database (two processes): failures counted per
//! name and per address, a lock after twenty, the same refusal for a
//! locked name, a wrong password and an unknown name, every failure and
//! lock audited, a lock lifted only by an administrator.

use std::net::IpAddr;

use host_example::store::{DEMO_PASSWORD, Store};
use host_example::{Host, HostError};

fn ip(text: &str) -> Option<IpAddr> {
    Some(text.parse().unwrap())
}

pub async fn twenty_failures_lock_a_name_in_every_process(url: &str) {
    let one = Host::new(Store::open(url).await.unwrap()).unwrap();
    let other = Host::new(Store::open(url).await.unwrap()).unwrap();
    let guesser = ip("203.0.113.7");
    // A few mistakes hold nothing back.
    for _ in 0..3 {
        assert!(
            !one.sessions()
                .sign_in("admin", "guess", guesser)
                .await
                .unwrap()
        );
    }
    assert!(
        one.sessions()
            .sign_in("admin", DEMO_PASSWORD, guesser)
            .await
            .unwrap()
    );
    // A success forgot them: twenty more in a row lock the name.
    for _ in 0..20 {
        assert!(
            !one.sessions()
                .sign_in("admin", "guess", guesser)
                .await
                .unwrap()
        );
    }
    // The right password, from anywhere, in the other process: refused.
    assert!(
        !other
            .sessions()
            .sign_in("admin", DEMO_PASSWORD, ip("198.51.100.1"))
            .await
            .unwrap()
    );
    let locks = other.sessions().sign_in_locks("admin").await.unwrap();
    assert_eq!(locks.len(), 1, "{locks:?}");
    assert_eq!(locks[0].name, "admin");
    assert!(locks[0].failures >= 20, "{locks:?}");

    let audit = other.admin().audit_tail("admin", 100).await.unwrap();
    let signins: Vec<_> = audit
        .iter()
        .filter(|e| e.tool.as_deref() == Some("signin"))
        .collect();
    assert_eq!(
        signins.iter().filter(|e| e.decision == "locked").count(),
        1,
        "one lock of the name: {signins:?}"
    );
    assert_eq!(
        signins.iter().filter(|e| e.decision == "refused").count(),
        3 + 20 + 1,
        "{signins:?}"
    );
    let last = signins.last().unwrap();
    assert!(
        last.detail.as_deref().unwrap().starts_with("locked"),
        "{last:?}"
    );

    // Only an administrator lifts it; then the password works again.
    assert!(matches!(
        other.sessions().unlock("clara", "admin").await,
        Err(HostError::NotAdmin { .. })
    ));
    // The locked administrator still acts (the lock holds back only the
    // password sign-in): here, lifting their own lock.
    assert!(one.sessions().unlock("admin", "admin").await.unwrap());
    assert!(!one.sessions().unlock("admin", "admin").await.unwrap());
    let elsewhere = ip("198.51.100.1");
    assert!(
        one.sessions()
            .sign_in("admin", DEMO_PASSWORD, elsewhere)
            .await
            .unwrap()
    );
    // The guesser's address is still held back, whoever signs in from it.
    assert!(
        !one.sessions()
            .sign_in("admin", DEMO_PASSWORD, guesser)
            .await
            .unwrap()
    );
}

pub async fn an_address_guessing_many_names_is_held_back(url: &str) {
    let host = Host::new(Store::open(url).await.unwrap()).unwrap();
    let guesser = ip("203.0.113.9");
    for n in 0..50 {
        let name = format!("nobody{n}");
        assert!(
            !host
                .sessions()
                .sign_in(&name, "guess", guesser)
                .await
                .unwrap()
        );
    }
    // A real user's right password from that address: refused; from
    // another: welcome.
    assert!(
        !host
            .sessions()
            .sign_in("clara", DEMO_PASSWORD, guesser)
            .await
            .unwrap()
    );
    assert!(
        host.sessions()
            .sign_in("clara", DEMO_PASSWORD, ip("198.51.100.2"))
            .await
            .unwrap()
    );
    // No sign-in without an address is stopped by the address's lock.
    assert!(
        host.sessions()
            .sign_in("clara", DEMO_PASSWORD, None)
            .await
            .unwrap()
    );
}

pub async fn a_forwarded_address_counts_only_from_a_trusted_proxy(url: &str) {
    let host = Host::new(Store::open(url).await.unwrap()).unwrap();
    let proxy = ip("10.0.0.5");
    let forwarded = Some("198.51.100.3, 10.0.0.5");
    // Not trusted: the peer is the client, whatever it forwards.
    assert_eq!(
        host.sessions()
            .client_address(proxy, forwarded)
            .await
            .unwrap(),
        proxy
    );
    host.admin()
        .set_setting("admin", "trusted_proxies", r#"["10.0.0.5"]"#)
        .await
        .unwrap();
    assert_eq!(
        host.sessions()
            .client_address(proxy, forwarded)
            .await
            .unwrap(),
        ip("198.51.100.3")
    );
    // Nothing usable forwarded: the proxy itself.
    assert_eq!(
        host.sessions()
            .client_address(proxy, Some("not an address"))
            .await
            .unwrap(),
        proxy
    );
    assert_eq!(
        host.sessions()
            .client_address(None, forwarded)
            .await
            .unwrap(),
        None
    );
    // A value that is no address list is refused, nothing stored.
    assert!(
        host.admin()
            .set_setting("admin", "trusted_proxies", r#"["proxy.local"]"#)
            .await
            .is_err()
    );
}

pub async fn the_overview_reads_on_every_backend(url: &str) {
    let host = Host::new(Store::open(url).await.unwrap()).unwrap();
    // A failed sign-in is a refusal without a gate: not counted per gate.
    assert!(
        !host
            .sessions()
            .sign_in("admin", "guess", None)
            .await
            .unwrap()
    );
    let overview = host.admin().overview("admin", 7).await.unwrap();
    assert_eq!(overview.days, 7);
    assert!(overview.usage.refusals.is_empty(), "{overview:?}");
    assert_eq!(overview.wait_median, None);
    assert!(matches!(
        host.admin().overview("admin", 3).await,
        Err(HostError::Invalid(_))
    ));
    assert!(matches!(
        host.admin().overview("clara", 7).await,
        Err(HostError::NotAdmin { .. })
    ));
}
