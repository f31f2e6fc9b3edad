//! The serialized events are the format stored runs already hold: an event
//! that borrows from the run writes the same bytes as the owned events of
//! earlier builds (the JSON below was written by one, before events
//! borrowed), and those bytes read back to an equal event that writes them
//! again. A host stores events and replays them in its inspector.

use std::borrow::Cow;
use std::time::Duration;

use serde_json::{Value, json};
use tool_core::ToolOutput;
use tool_core::agent::{CallResult, Event, Message, ToolCall, Usage};

const REQUEST_SENT: &str = r#"{"event":"request_sent","round":1,"messages":[{"role":"system","text":"Be brief."},{"role":"user","text":"What is 2 + 3?"},{"role":"assistant","text":"","calls":[{"id":"call-1","name":"add_numbers","arguments":{"a":2,"b":3}}]},{"role":"tool","call_id":"call-1","name":"add_numbers","content":"5","is_error":false}],"tools":[{"function":{"name":"add_numbers","parameters":{"type":"object"}},"type":"function"}]}"#;
const CLOSING_REQUEST_SENT: &str = r#"{"event":"request_sent","round":6,"messages":[{"role":"system","text":"Be brief."},{"role":"user","text":"What is 2 + 3?"}],"tools":null}"#;
const RESPONSE_WITH_CALLS: &str = r#"{"event":"response_received","round":1,"text":"","calls":[{"id":"call-1","name":"add_numbers","arguments":{"a":2,"b":3}}],"usage":{"input_tokens":10,"output_tokens":5},"thinking":"Add them.","raw":{"id":"resp-1"}}"#;
const FINAL_RESPONSE: &str = r#"{"event":"response_received","round":2,"text":"2 + 3 = 5","calls":[],"usage":{"input_tokens":10,"output_tokens":5}}"#;
const TOOL_EXECUTED: &str = r#"{"event":"tool_executed","round":1,"call_id":"call-1","tool":"add_numbers","arguments":{"a":2,"b":3},"result":{"kind":"output","output":{"text":"5","json":null}},"duration":{"secs":0,"nanos":1500000}}"#;
const TOOL_REFUSED: &str = r#"{"event":"tool_executed","round":1,"call_id":"call-2","tool":"nope","arguments":"not an object","result":{"kind":"error","model_text":"tool `nope` is not available","detail":"no tool","denial":null},"duration":{"secs":0,"nanos":7}}"#;

fn call() -> ToolCall {
    ToolCall {
        id: "call-1".into(),
        name: "add_numbers".into(),
        arguments: json!({"a": 2, "b": 3}),
    }
}

fn messages() -> Vec<Message> {
    vec![
        Message::system("Be brief."),
        Message::user("What is 2 + 3?"),
        Message::Assistant {
            text: String::new(),
            calls: vec![call()],
        },
        Message::Tool {
            call_id: "call-1".into(),
            name: "add_numbers".into(),
            content: "5".into(),
            is_error: false,
        },
    ]
}

fn tools() -> Vec<Value> {
    vec![json!({
        "type": "function",
        "function": {"name": "add_numbers", "parameters": {"type": "object"}}
    })]
}

const USAGE: Usage = Usage {
    input_tokens: 10,
    output_tokens: 5,
};

/// Each event as the loop now builds it (borrowing), with its stored JSON.
fn each(check: impl Fn(&Event<'_>, &str)) {
    let (messages, tools, calls) = (messages(), tools(), vec![call()]);
    let raw = json!({"id": "resp-1"});
    let arguments = json!({"a": 2, "b": 3});
    let not_an_object = json!("not an object");
    check(
        &Event::RequestSent {
            round: 1,
            messages: Cow::Borrowed(&messages),
            tools: Some(Cow::Borrowed(&tools)),
        },
        REQUEST_SENT,
    );
    check(
        &Event::RequestSent {
            round: 6,
            messages: Cow::Borrowed(&messages[..2]),
            tools: None,
        },
        CLOSING_REQUEST_SENT,
    );
    check(
        &Event::ResponseReceived {
            round: 1,
            text: Cow::Borrowed(""),
            calls: Cow::Borrowed(&calls),
            usage: USAGE,
            thinking: Some(Cow::Borrowed("Add them.")),
            raw: Some(Cow::Borrowed(&raw)),
        },
        RESPONSE_WITH_CALLS,
    );
    check(
        &Event::ResponseReceived {
            round: 2,
            text: Cow::Borrowed("2 + 3 = 5"),
            calls: Cow::Borrowed(&[]),
            usage: USAGE,
            thinking: None,
            raw: None,
        },
        FINAL_RESPONSE,
    );
    check(
        &Event::ToolExecuted {
            round: 1,
            call_id: Cow::Borrowed("call-1"),
            tool: Cow::Borrowed("add_numbers"),
            arguments: Cow::Borrowed(&arguments),
            result: CallResult::Output {
                output: ToolOutput::text("5"),
            },
            duration: Duration::from_micros(1500),
        },
        TOOL_EXECUTED,
    );
    check(
        &Event::ToolExecuted {
            round: 1,
            call_id: Cow::Borrowed("call-2"),
            tool: Cow::Borrowed("nope"),
            arguments: Cow::Borrowed(&not_an_object),
            result: CallResult::Error {
                model_text: "tool `nope` is not available".into(),
                detail: "no tool".into(),
                denial: None,
            },
            duration: Duration::from_nanos(7),
        },
        TOOL_REFUSED,
    );
}

#[test]
fn a_borrowed_event_writes_the_stored_bytes() {
    each(|event, stored| assert_eq!(serde_json::to_string(event).unwrap(), stored));
}

#[test]
fn stored_bytes_read_back_to_the_same_event_and_bytes() {
    each(|event, stored| {
        let back: Event<'static> = serde_json::from_str(stored).unwrap();
        assert_eq!(&back, event);
        assert_eq!(serde_json::to_string(&back).unwrap(), stored);
        let owned = event.clone().into_owned();
        assert_eq!(&owned, event);
    });
}
