//! Where webhooks may be pointed, and what they may carry (issue 42),
//! through the app layer with an injected resolver: no socket is opened to
//! anything but a receiver on loopback.
//!
//! - The cloud metadata address and its disguises are refused when set,
//!   whatever the setting; a private or loopback address only once the
//!   local network is allowed.
//! - A name is looked up at every delivery and each address checked: a
//!   name that resolves to the metadata address is refused before any
//!   connection, and a delivery connects to the address it checked.
//! - A webhook's data class: a proposal's values above it are left out.

#[path = "store/backends.rs"]
#[allow(dead_code)] // the SQLite half only
mod backends;
#[path = "support/loopback.rs"]
mod loopback;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::routing::post;
use backends::TestDb;
use host_example::Host;
use host_example::app::calls::CallScope;
use host_example::app::webhooks::target::WebhookResolver;
use host_example::store::Store;
use serde_json::{Value, json};
use tool_core::calls::CancelToken;
use tool_core::{Actor, BoxFuture, DataClass, RunId};

/// A resolver that answers from a table, and remembers what it was asked.
#[derive(Debug, Default)]
struct Table {
    names: HashMap<String, SocketAddr>,
    asked: Mutex<Vec<String>>,
}

impl WebhookResolver for Table {
    fn resolve<'a>(
        &'a self,
        host: &'a str,
        _port: u16,
    ) -> BoxFuture<'a, std::io::Result<Vec<SocketAddr>>> {
        self.asked.lock().unwrap().push(host.to_owned());
        let found = self.names.get(host).copied();
        Box::pin(async move {
            found
                .map(|address| vec![address])
                .ok_or_else(|| std::io::Error::other("no such name"))
        })
    }
}

/// A receiver on loopback keeping each body it gets.
fn receiver() -> (SocketAddr, Arc<Mutex<Vec<Value>>>) {
    let got: Arc<Mutex<Vec<Value>>> = Arc::default();
    let kept = Arc::clone(&got);
    let app = Router::new().route(
        "/hook",
        post(move |body: Bytes| {
            let kept = Arc::clone(&kept);
            async move {
                kept.lock()
                    .unwrap()
                    .push(serde_json::from_slice(&body).unwrap());
                StatusCode::OK
            }
        }),
    );
    (loopback::serve(app), got)
}

struct World {
    runtime: tokio::runtime::Runtime,
    host: Host,
    resolver: Arc<Table>,
    _db: TestDb,
}

impl World {
    fn new(names: &[(&str, SocketAddr)]) -> World {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let db = TestDb::sqlite();
        let resolver = Arc::new(Table {
            names: names
                .iter()
                .map(|(name, address)| ((*name).to_owned(), *address))
                .collect(),
            asked: Mutex::default(),
        });
        let host = runtime.block_on(async {
            let store = Store::open(&db.url).await.unwrap();
            let tools = r#"{"update_page_metadata": {"state": "enabled"}}"#;
            store.config().set_setting("tools", tools).await.unwrap();
            store
                .config()
                .set_setting("trust_zone", r#""personal""#)
                .await
                .unwrap();
            // One attempt: a refused delivery is dead at once.
            let delivery = r#"{"attempts": 1, "backoff_seconds": [1], "timeout_seconds": 5}"#;
            store
                .config()
                .set_setting("webhook_delivery", delivery)
                .await
                .unwrap();
            Host::new(store)
                .unwrap()
                .with_webhook_resolver(Arc::clone(&resolver) as Arc<dyn WebhookResolver>)
        });
        World {
            runtime,
            host,
            resolver,
            _db: db,
        }
    }

    fn allow_local_network(&self, allowed: bool) {
        let value = json!({"allow_local_network": allowed}).to_string();
        self.runtime
            .block_on(
                self.host
                    .admin()
                    .set_setting("admin", "webhook_targets", &value),
            )
            .unwrap();
    }

    fn set(&self, name: &str, url: &str, class: Option<DataClass>) -> Result<(), String> {
        let events = ["proposal.created".to_owned()];
        self.runtime
            .block_on(
                self.host
                    .jobs()
                    .put_webhook("admin", name, url, &events, None, class),
            )
            .map(|_| ())
            .map_err(|error| error.to_string())
    }

    /// One single call of admin's: `tool` with `arguments`.
    fn call(&self, tool: &str, arguments: Value) {
        let admin = Actor {
            id: "admin".into(),
            admin: true,
        };
        let run = RunId(format!("call-{tool}"));
        let called = self.runtime.block_on(self.host.calls().call(
            &admin,
            tool,
            arguments,
            run,
            &CallScope::Stateless,
            CancelToken::new(),
        ));
        assert!(called.is_ok(), "{called:?}");
    }

    fn propose(&self, title: &str) {
        self.call("update_page_metadata", json!({"page": 2, "title": title}));
    }

    /// One delivery pass; the errors of the deliveries left dead.
    fn deliver(&self) -> Vec<String> {
        self.runtime
            .block_on(self.host.jobs().deliver_webhooks())
            .unwrap();
        let dead = self
            .runtime
            .block_on(self.host.jobs().dead_deliveries("admin", 100))
            .unwrap();
        dead.into_iter()
            .map(|d| d.last_error.unwrap_or_default())
            .collect()
    }
}

#[test]
fn metadata_addresses_are_refused_when_set_whatever_the_setting() {
    let world = World::new(&[]);
    for allowed in [false, true] {
        world.allow_local_network(allowed);
        for url in [
            "http://169.254.169.254/latest/meta-data/",
            "http://[::ffff:169.254.169.254]/",
            "http://[fe80::1]/hook",
            "http://metadata.google.internal/computeMetadata/v1/",
        ] {
            let refused = world.set("cloud", url, None).unwrap_err();
            assert!(refused.contains("never sent there"), "{url}: {refused}");
        }
    }
}

#[test]
fn the_local_network_only_once_an_administrator_allows_it() {
    let world = World::new(&[]);
    for url in [
        "http://127.0.0.1:9/hook",
        "http://10.0.0.5/hook",
        "http://localhost:9/",
    ] {
        let refused = world.set("near", url, None).unwrap_err();
        assert!(refused.contains("allow_local_network"), "{url}: {refused}");
    }
    world.allow_local_network(true);
    for url in [
        "http://127.0.0.1:9/hook",
        "http://10.0.0.5/hook",
        "http://localhost:9/",
    ] {
        world.set("near", url, None).unwrap();
    }
}

#[test]
fn a_name_is_checked_on_what_it_resolves_to_at_every_delivery() {
    let (receiver, got) = receiver();
    let metadata: SocketAddr = "169.254.169.254:80".parse().unwrap();
    let world = World::new(&[("rebinding.test", metadata), ("receiver.test", receiver)]);
    // Names pass when set: what they resolve to is checked when sent.
    world
        .set("sly", "http://rebinding.test/hook", None)
        .unwrap();
    world
        .set(
            "fine",
            &format!("http://receiver.test:{}/hook", receiver.port()),
            None,
        )
        .unwrap();

    // The local network not allowed: both refused, nothing received.
    world.propose("Refused twice");
    let errors = world.deliver();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors
            .iter()
            .any(|e| e.contains("169.254.169.254") && e.contains("never sent there")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("allow_local_network")),
        "{errors:?}"
    );
    assert!(got.lock().unwrap().is_empty());

    // Allowed: the receiver gets it at the address checked (the system
    // would not resolve `receiver.test`); the metadata address never.
    world.allow_local_network(true);
    world.propose("Received once");
    let errors = world.deliver();
    assert_eq!(errors.len(), 3, "{errors:?}");
    let bodies = got.lock().unwrap().clone();
    assert_eq!(bodies.len(), 1, "{bodies:?}");
    assert_eq!(bodies[0]["proposal"]["fields"][0]["new"], "Received once");
    let asked = world.resolver.asked.lock().unwrap().clone();
    assert!(
        asked.iter().filter(|n| *n == "rebinding.test").count() >= 2,
        "{asked:?}"
    );
}

fn exposure_policy(world: &World, writes_after_untrusted: &str) {
    let policy = json!({
        "enabled": true,
        "egress_after_data": "confidential",
        "egress_after_untrusted": true,
        "writes_after_untrusted": writes_after_untrusted,
    });
    world
        .runtime
        .block_on(
            world
                .host
                .admin()
                .set_setting("admin", "exposure", &policy.to_string()),
        )
        .unwrap();
}

/// The bodies that carry `title` as a proposed value.
fn carrying(bodies: &[Value], title: &str) -> usize {
    bodies
        .iter()
        .filter(|b| b["proposal"]["fields"][0]["new"] == title)
        .count()
}

#[test]
fn a_webhook_below_personal_gets_no_personal_values() {
    let (receiver, got) = receiver();
    let world = World::new(&[]);
    world.allow_local_network(true);
    // Writes after untrusted content held for nobody: what is left out
    // here is left out for its class alone.
    exposure_policy(&world, "anyone");
    let url = format!("http://127.0.0.1:{}/hook", receiver.port());
    world.set("team", &url, None).unwrap();
    world
        .set("privacy", &url, Some(DataClass::Personal))
        .unwrap();

    // A proposal made with nothing read: internal values, for both.
    world.propose("Plain");
    // One made after personal data was read: its values only for the
    // webhook of class personal.
    world.call("fetch_logs", json!({}));
    world.propose("After the logs");
    assert!(world.deliver().is_empty());
    let bodies = got.lock().unwrap().clone();
    assert_eq!(bodies.len(), 4, "{bodies:#?}");
    assert_eq!(carrying(&bodies, "Plain"), 2, "{bodies:#?}");
    assert_eq!(carrying(&bodies, "After the logs"), 1, "{bodies:#?}");
    let lean: Vec<&Value> = bodies
        .iter()
        .filter(|b| b["proposal"].get("values_left_out").is_some())
        .collect();
    assert_eq!(lean.len(), 1, "{bodies:#?}");
    let proposal = &lean[0]["proposal"];
    assert_eq!(proposal["values_left_out"], "they may carry personal data");
    assert_eq!(proposal["fields"][0], json!({"field": "title"}));
    assert!(proposal.get("summary").is_none(), "{proposal}");
    assert!(proposal["id"].is_string() && proposal["record"].is_string());
    assert!(!lean[0].to_string().contains("After the logs"));
}

#[test]
fn a_proposal_gate_9_held_carries_its_values_to_no_webhook() {
    let (receiver, got) = receiver();
    let world = World::new(&[]);
    world.allow_local_network(true);
    let url = format!("http://127.0.0.1:{}/hook", receiver.port());
    world
        .set("privacy", &url, Some(DataClass::Personal))
        .unwrap();
    // The logs carry what visitors wrote: untrusted content, so the next
    // write is held for another approver.
    world.call("fetch_logs", json!({}));
    world.propose("Held");
    assert!(world.deliver().is_empty());
    let bodies = got.lock().unwrap().clone();
    assert_eq!(bodies.len(), 1, "{bodies:#?}");
    assert_eq!(carrying(&bodies, "Held"), 0, "{bodies:#?}");
    assert_eq!(
        bodies[0]["proposal"]["values_left_out"],
        "proposed after untrusted content entered its run"
    );
}
