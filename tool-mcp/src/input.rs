//! Input-required results (MCP 2026-07-28, SEP-2322): the revision sends
//! no request to the client inside a call, so a call that asks its client
//! (a form, its model, its roots) ends with the questions instead, and the
//! client makes the same call again with the answers.
//!
//! The call runs again from the start each round ([`Replay`]): a question
//! it asked before is answered at once from what came back, and one not
//! yet answered is recorded and ends the call as
//! [`AskError::InputRequired`]. The server holds nothing between rounds:
//! the answers of earlier rounds travel in `requestState`, sealed with an
//! HMAC-SHA256 under the server's key (rmcp's [`RequestStateCodec`]) and
//! bound to the request (its method, name, arguments and caller), so a
//! state that was changed, or made for another request, is refused with
//! -32602 and decides nothing. What the client answers is untrusted all
//! the same (a call that used an answer carries person-written text for
//! gate 9), and no answer decides an approval.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{
    ClientCapabilities, ErrorData, InputRequest, InputRequests, InputRequiredResult,
    InputResponses, ProtocolVersion, RequestStateCodec, SealOptions,
};
use rmcp::service::RequestContext;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tool_core::Actor;
use tool_core::client::AskError;

/// The server's key for `requestState`: the codec, or why there is none
/// (no random key could be drawn), in which case a call that asks its
/// client on 2026-07-28 fails rather than sending a state nobody checks.
pub(crate) struct InputRounds {
    codec: Result<RequestStateCodec, String>,
}

impl std::fmt::Debug for InputRounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InputRounds").finish_non_exhaustive()
    }
}

/// The request a `requestState` is bound to: its method, name, arguments
/// (keys sorted at every depth, so the client's key order does not
/// matter) and caller.
pub(crate) struct Bound(Vec<u8>);

impl Bound {
    /// `method` (`tools/call`, `prompts/get`) of `name` with `arguments`,
    /// asked by `actor`.
    pub(crate) fn new(method: &str, name: &str, arguments: &Value, actor: &Actor) -> Bound {
        let request = json!([method, name, canonical(arguments), actor.id]);
        Bound(request.to_string().into_bytes())
    }
}

/// `value` with every object's keys in order.
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let sorted: BTreeMap<&String, Value> = map
                .iter()
                .map(|(key, value)| (key, canonical(value)))
                .collect();
            Value::Object(
                sorted
                    .into_iter()
                    .map(|(key, value)| (key.clone(), value))
                    .collect::<Map<_, _>>(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

impl InputRounds {
    /// Under a random key of this process.
    pub(crate) fn random() -> Self {
        let mut key = vec![0; 32];
        let codec = getrandom::fill(&mut key)
            .map_err(|error| format!("no random key for requestState: {error}"))
            .and_then(|()| RequestStateCodec::try_new(key).map_err(|error| error.to_string()));
        InputRounds { codec }
    }

    /// Under `key`, the same in every process that serves one URL, so
    /// that a round may reach any of them.
    pub(crate) fn keyed(key: [u8; 32]) -> Self {
        InputRounds {
            codec: RequestStateCodec::try_new(key.to_vec()).map_err(|error| error.to_string()),
        }
    }

    fn codec(&self) -> Result<&RequestStateCodec, ErrorData> {
        self.codec
            .as_ref()
            .map_err(|why| ErrorData::internal_error(why.clone(), None))
    }

    /// The round of `bound` a request of `cx` is, on 2026-07-28 (`None`
    /// before it: there the client is asked inside the call).
    pub(crate) fn round(
        &self,
        cx: &RequestContext<RoleServer>,
        bound: &Bound,
        state: Option<&str>,
        responses: Option<InputResponses>,
    ) -> Result<Option<Arc<Replay>>, ErrorData> {
        let stateless = cx
            .protocol_version()
            .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
        if !stateless {
            return Ok(None);
        }
        Ok(Some(Arc::new(self.replay(bound, state, responses)?)))
    }

    /// The round of `bound` that came with `state` and `responses`: the
    /// answers of earlier rounds (from `state`, checked) and this one's.
    ///
    /// # Errors
    ///
    /// -32602 when `state` is not one this server sealed for `bound`, or
    /// it is too old.
    pub(crate) fn replay(
        &self,
        bound: &Bound,
        state: Option<&str>,
        responses: Option<InputResponses>,
    ) -> Result<Replay, ErrorData> {
        let mut answers = match state {
            None => BTreeMap::new(),
            Some(state) => self
                .codec()?
                .open_json_with::<Sealed>(state, &bound.0)
                .map_err(|error| {
                    ErrorData::invalid_params(
                        format!(
                            "requestState failed its check ({error}): make the call again without it"
                        ),
                        None,
                    )
                })?
                .answers,
        };
        // An answer the state already holds stays as it was given.
        for (key, answer) in responses.unwrap_or_default() {
            answers.entry(key).or_insert(answer);
        }
        Ok(Replay {
            answers,
            asked: Mutex::default(),
            used: Mutex::default(),
            undeclared: Mutex::default(),
            next: AtomicUsize::new(0),
        })
    }

    /// The input-required result of a round of `bound` that ended at the
    /// questions `replay` recorded, its state good for `lifetime`; `None`
    /// when it asked none.
    pub(crate) fn required(
        &self,
        bound: &Bound,
        replay: Option<&Replay>,
        lifetime: Duration,
    ) -> Result<Option<InputRequiredResult>, ErrorData> {
        let Some(replay) = replay else {
            return Ok(None);
        };
        let asked = std::mem::take(&mut *lock(&replay.asked));
        if asked.is_empty() {
            return Ok(None);
        }
        let used = lock(&replay.used).clone();
        let answers = replay
            .answers
            .iter()
            .filter(|(key, _)| used.contains(*key))
            .map(|(key, answer)| (key.clone(), answer.clone()))
            .collect();
        let state = self
            .codec()?
            .seal_json_with(
                &Sealed { answers },
                &SealOptions::new().associated_data(&bound.0).ttl(lifetime),
            )
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        Ok(Some(InputRequiredResult::new(Some(asked), Some(state))))
    }
}

/// What `requestState` carries: the answers the call used so far.
#[derive(serde::Serialize, serde::Deserialize)]
struct Sealed {
    answers: BTreeMap<String, Value>,
}

/// One round of a call on 2026-07-28: the answers it came with, and the
/// questions it asked that have none yet.
#[derive(Debug)]
pub(crate) struct Replay {
    answers: BTreeMap<String, Value>,
    asked: Mutex<InputRequests>,
    used: Mutex<BTreeSet<String>>,
    /// The client capabilities a question needed that the request did not
    /// declare (`sampling`, `elicitation.url`).
    undeclared: Mutex<BTreeSet<&'static str>>,
    next: AtomicUsize,
}

impl Replay {
    /// A question needed `capability`, which the request did not declare.
    pub(crate) fn undeclared(&self, capability: &'static str) {
        lock(&self.undeclared).insert(capability);
    }

    /// A key for a question the call did not name: `kind` and its place
    /// among the call's questions, the same each round.
    pub(crate) fn next_key(&self, kind: &str) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        format!("{kind}-{n}")
    }

    /// The answer under `key`, read as `T`; when there is none, or it is
    /// not a `T`, the question (`method` with `params`) is recorded for
    /// the client and [`AskError::InputRequired`] ends the wait.
    pub(crate) fn answer<T: DeserializeOwned>(
        &self,
        key: &str,
        method: &str,
        params: Value,
    ) -> Result<T, AskError> {
        if let Some(answer) = self.answers.get(key)
            && let Ok(answer) = serde_json::from_value(answer.clone())
        {
            lock(&self.used).insert(key.to_owned());
            return Ok(answer);
        }
        let question: InputRequest = serde_json::from_value(
            json!({"method": method, "params": params}),
        )
        .map_err(|error| AskError::Failed(format!("not a question MCP can carry: {error}")))?;
        lock(&self.asked).insert(key.to_owned(), question);
        Err(AskError::InputRequired(key.to_owned()))
    }
}

/// The error for a round that failed after a question needed a client
/// capability the request did not declare (2026-07-28: -32021, naming
/// them as client capabilities), if one did.
pub(crate) fn undeclared(replay: Option<&Replay>) -> Option<ErrorData> {
    let missing = lock(&replay?.undeclared).clone();
    if missing.is_empty() {
        return None;
    }
    let mut required = Map::new();
    for capability in missing {
        match capability.split_once('.') {
            Some((parent, mode)) => {
                let entry = required.entry(parent).or_insert_with(|| json!({}));
                entry[mode] = json!({});
            }
            None => {
                required.entry(capability).or_insert_with(|| json!({}));
            }
        }
    }
    Some(
        serde_json::from_value::<ClientCapabilities>(Value::Object(required))
            .map(ErrorData::missing_required_client_capability)
            .unwrap_or_else(|error| ErrorData::internal_error(error.to_string(), None)),
    )
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Every write is one insert or one take: a panic elsewhere leaves no
    // half-write.
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    fn rounds() -> InputRounds {
        InputRounds::random()
    }

    fn actor() -> Actor {
        Actor {
            id: "ana".into(),
            admin: false,
        }
    }

    #[test]
    fn an_answer_comes_back_through_the_sealed_state_and_only_for_its_request() {
        let rounds = rounds();
        let bound = Bound::new(
            "tools/call",
            "t",
            &json!({"b": 1, "a": [{"y": 2, "x": 1}]}),
            &actor(),
        );
        let first = rounds.replay(&bound, None, None).unwrap();
        let asked: Result<Value, _> = first.answer("name", "roots/list", json!({}));
        assert_eq!(asked, Err(AskError::InputRequired("name".into())));
        let required = rounds
            .required(&bound, Some(&first), MINUTE)
            .unwrap()
            .unwrap();
        let state = required.request_state.unwrap();

        // Round two answers `name`; round three carries it in the state.
        let responses = BTreeMap::from([("name".to_owned(), json!({"roots": []}))]);
        let second = rounds
            .replay(&bound, Some(&state), Some(responses))
            .unwrap();
        let roots: Value = second.answer("name", "roots/list", json!({})).unwrap();
        assert_eq!(roots, json!({"roots": []}));
        let _: Result<Value, _> = second.answer("more", "roots/list", json!({}));
        let state = rounds
            .required(&bound, Some(&second), MINUTE)
            .unwrap()
            .unwrap()
            .request_state
            .unwrap();

        // The same request with its keys in another order is the same one.
        let reordered = Bound::new(
            "tools/call",
            "t",
            &json!({"a": [{"x": 1, "y": 2}], "b": 1}),
            &actor(),
        );
        let third = rounds.replay(&reordered, Some(&state), None).unwrap();
        assert!(
            third
                .answer::<Value>("name", "roots/list", json!({}))
                .is_ok()
        );

        // Another request, a changed state, another server: refused.
        let other = Bound::new("tools/call", "t", &json!({"b": 2}), &actor());
        assert!(rounds.replay(&other, Some(&state), None).is_err());
        let changed = format!("{state}-TAMPERED");
        let refused = rounds.replay(&bound, Some(&changed), None).unwrap_err();
        assert_eq!(refused.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert!(
            InputRounds::random()
                .replay(&bound, Some(&state), None)
                .is_err()
        );
    }

    #[test]
    fn a_state_sealed_by_one_process_opens_in_another_under_the_same_key() {
        let key = [7; 32];
        let (one, other) = (InputRounds::keyed(key), InputRounds::keyed(key));
        let bound = Bound::new("tools/call", "t", &json!({}), &actor());
        let first = one.replay(&bound, None, None).unwrap();
        let _: Result<Value, _> = first.answer("name", "roots/list", json!({}));
        let state = one
            .required(&bound, Some(&first), MINUTE)
            .unwrap()
            .unwrap()
            .request_state
            .unwrap();
        assert!(other.replay(&bound, Some(&state), None).is_ok());
        assert!(
            InputRounds::keyed([8; 32])
                .replay(&bound, Some(&state), None)
                .is_err()
        );
    }

    #[test]
    fn an_answer_of_the_wrong_shape_is_asked_again() {
        let rounds = rounds();
        let bound = Bound::new("tools/call", "t", &json!({}), &actor());
        let responses = BTreeMap::from([("name".to_owned(), json!(12345))]);
        let replay = rounds.replay(&bound, None, Some(responses)).unwrap();
        let asked: Result<rmcp::model::ElicitResult, _> =
            replay.answer("name", "roots/list", json!({}));
        assert_eq!(asked.unwrap_err(), AskError::InputRequired("name".into()));
        assert!(
            rounds
                .required(&bound, Some(&replay), MINUTE)
                .unwrap()
                .is_some()
        );
    }
}
