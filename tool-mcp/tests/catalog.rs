//! A host's own prompts, resources and completions, over raw JSON-RPC on
//! an in-memory stdio pair: what tool-mcp checks before the host is asked
//! (a prompt must be listed, its required arguments present), what it
//! answers for a resource nobody serves, and that completion is offered
//! only by a host that completes.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tool_core::{Actor, Registry};
use tool_mcp::rmcp::model::{
    ArgumentInfo, CompletionInfo, GetPromptResult, JsonObject, Prompt, PromptArgument,
    PromptMessage, Reference, Resource, ResourceContents, Role,
};
use tool_mcp::{Completions, Failure, Gated, McpServer, Prompts, Resources};

struct Greeting;

#[async_trait::async_trait]
impl Prompts for Greeting {
    async fn list(&self, actor: &Actor) -> Result<Vec<Prompt>, Failure> {
        // Per caller: only `ada` is offered the prompt.
        if actor.id != "ada" {
            return Ok(Vec::new());
        }
        let name = PromptArgument::new("name").with_required(true);
        Ok(vec![Prompt::new(
            "greet",
            Some("Greets someone."),
            Some(vec![name]),
        )])
    }

    async fn get(
        &self,
        _actor: &Actor,
        _name: &str,
        arguments: &JsonObject,
    ) -> Result<GetPromptResult, Failure> {
        let name = arguments["name"].as_str().unwrap_or_default();
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Say hello to {name}."),
        )]))
    }
}

#[derive(Clone)]
struct Notes {
    updates: tokio::sync::broadcast::Sender<String>,
}

impl Notes {
    fn new() -> Notes {
        Notes {
            updates: tokio::sync::broadcast::Sender::new(8),
        }
    }
}

#[async_trait::async_trait]
impl Resources for Notes {
    async fn list(&self, _actor: &Actor) -> Result<Vec<Resource>, Failure> {
        Ok(vec![Resource::new("note://one", "one")])
    }

    async fn read(
        &self,
        _actor: &Actor,
        uri: &str,
    ) -> Result<Option<Vec<ResourceContents>>, Failure> {
        Ok((uri == "note://one").then(|| vec![ResourceContents::text("the first note", uri)]))
    }

    fn updates(&self) -> Option<tokio::sync::broadcast::Receiver<String>> {
        Some(self.updates.subscribe())
    }
}

struct Names;

#[async_trait::async_trait]
impl Completions for Names {
    async fn complete(
        &self,
        _actor: &Actor,
        _reference: &Reference,
        argument: &ArgumentInfo,
    ) -> Result<CompletionInfo, Failure> {
        let values = ["grace", "guido"]
            .into_iter()
            .filter(|name| name.starts_with(&argument.value))
            .map(str::to_owned)
            .collect();
        Ok(CompletionInfo::new(values)?)
    }
}

/// One stdio connection to `server` acting for `actor`.
struct Connection {
    input: DuplexStream,
    output: Lines<BufReader<DuplexStream>>,
    next_id: u64,
    /// The answer to `initialize`.
    initialized: Value,
}

impl Connection {
    async fn open(server: McpServer, actor: &str) -> Connection {
        let (client_in, server_out) = tokio::io::duplex(1 << 16);
        let (server_in, client_out) = tokio::io::duplex(1 << 16);
        tokio::spawn(server.serve_io(Actor::user(actor), server_in, server_out));
        let mut connection = Connection {
            input: client_out,
            output: BufReader::new(client_in).lines(),
            next_id: 0,
            initialized: Value::Null,
        };
        let params = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "catalog-test", "version": "1"},
        });
        connection.initialized = connection.request("initialize", params).await;
        connection
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        connection
    }

    async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.input.write_all(line.as_bytes()).await.unwrap();
    }

    /// The next notification within a second, if any.
    async fn notification(&mut self) -> Option<Value> {
        let wait = std::time::Duration::from_secs(1);
        loop {
            let line = tokio::time::timeout(wait, self.output.next_line())
                .await
                .ok()?
                .unwrap()?;
            let message: Value = serde_json::from_str(&line).unwrap();
            if message.get("id").is_none() {
                return Some(message);
            }
        }
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(message).await;
        loop {
            let line = self.output.next_line().await.unwrap().expect("an answer");
            let answer: Value = serde_json::from_str(&line).unwrap();
            if answer["id"] == id {
                return answer;
            }
        }
    }
}

fn server(completes: bool) -> McpServer {
    server_with(completes, Notes::new())
}

fn server_with(completes: bool, notes: Notes) -> McpServer {
    let host = Gated::new(Registry::builder().build().unwrap())
        .prompts(Greeting)
        .resources(notes);
    McpServer::from_host(if completes {
        host.completions(Names)
    } else {
        host
    })
}

#[tokio::test]
async fn a_prompt_is_got_only_when_listed_for_the_caller_and_with_its_required_arguments() {
    let mut ada = Connection::open(server(false), "ada").await;
    let listed = ada.request("prompts/list", json!({})).await;
    assert_eq!(listed["result"]["prompts"][0]["name"], "greet", "{listed}");
    let got = ada
        .request(
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Grace"}}),
        )
        .await;
    assert_eq!(
        got["result"]["messages"][0]["content"]["text"], "Say hello to Grace.",
        "{got}"
    );
    let without = ada.request("prompts/get", json!({"name": "greet"})).await;
    assert_eq!(without["error"]["code"], -32602, "{without}");
    assert_eq!(
        without["error"]["message"],
        "prompt `greet` needs the argument `name`"
    );

    // Not offered to bob: the same answer as a prompt that does not exist.
    let mut bob = Connection::open(server(false), "bob").await;
    let refused = bob
        .request(
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Grace"}}),
        )
        .await;
    let missing = bob.request("prompts/get", json!({"name": "nothing"})).await;
    assert_eq!(
        refused["error"]["message"], "no prompt `greet`",
        "{refused}"
    );
    assert_eq!(refused["error"]["code"], missing["error"]["code"]);
}

#[tokio::test]
async fn resources_are_read_by_uri_and_an_unknown_one_is_not_found() {
    let mut ada = Connection::open(server(false), "ada").await;
    let listed = ada.request("resources/list", json!({})).await;
    assert_eq!(
        listed["result"]["resources"][0]["uri"], "note://one",
        "{listed}"
    );
    let read = ada
        .request("resources/read", json!({"uri": "note://one"}))
        .await;
    assert_eq!(
        read["result"]["contents"][0]["text"], "the first note",
        "{read}"
    );
    let unknown = ada
        .request("resources/read", json!({"uri": "note://two"}))
        .await;
    assert_eq!(
        unknown["error"]["message"], "no resource `note://two`",
        "{unknown}"
    );
}

#[tokio::test]
async fn completion_is_offered_only_by_a_host_that_completes() {
    let mut plain = Connection::open(server(false), "ada").await;
    let params = json!({
        "ref": {"type": "ref/prompt", "name": "greet"},
        "argument": {"name": "name", "value": "g"},
    });
    let capabilities = &plain.initialized["result"]["capabilities"];
    assert!(capabilities.get("completions").is_none(), "{capabilities}");
    let refused = plain.request("completion/complete", params.clone()).await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");

    let mut completing = Connection::open(server(true), "ada").await;
    let capabilities = &completing.initialized["result"]["capabilities"];
    assert!(capabilities.get("completions").is_some(), "{capabilities}");
    let completed = completing.request("completion/complete", params).await;
    assert_eq!(
        completed["result"]["completion"]["values"],
        json!(["grace", "guido"]),
        "{completed}"
    );
}

#[tokio::test]
async fn a_session_hears_of_the_resources_it_subscribed_to_until_it_unsubscribes() {
    let notes = Notes::new();
    // Another listener, so an update is sent whether a session listens.
    let _elsewhere = notes.updates.subscribe();
    let mut ada = Connection::open(server_with(false, notes.clone()), "ada").await;
    let capabilities = &ada.initialized["result"]["capabilities"];
    assert_eq!(
        capabilities["resources"]["subscribe"], true,
        "{capabilities}"
    );
    let unknown = ada
        .request("resources/subscribe", json!({"uri": "note://two"}))
        .await;
    assert_eq!(
        unknown["error"]["message"], "no resource `note://two`",
        "{unknown}"
    );
    let subscribed = ada
        .request("resources/subscribe", json!({"uri": "note://one"}))
        .await;
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");

    notes.updates.send("note://other".into()).unwrap();
    notes.updates.send("note://one".into()).unwrap();
    let heard = ada.notification().await.expect("an update");
    assert_eq!(heard["method"], "notifications/resources/updated");
    assert_eq!(heard["params"]["uri"], "note://one");

    ada.request("resources/unsubscribe", json!({"uri": "note://one"}))
        .await;
    notes.updates.send("note://one".into()).unwrap();
    assert_eq!(ada.notification().await, None);
}
