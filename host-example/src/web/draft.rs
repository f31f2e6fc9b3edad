//! The playground's form as it was sent, kept with a live run so its page
//! shows the form again.

use std::collections::BTreeSet;

use crate::app::DEFAULT_ROUNDS;
use crate::app::RunRequest;
use crate::app::runs::MAX_ROUNDS;
use tool_core::gates::Selection;

/// The form as sent (`skills`, `groups` and `tools` repeat, so it is read
/// from the raw pairs).
#[derive(Debug, Clone)]
pub(super) struct Draft {
    /// A configuration of the `models` setting; `None`: the `model` one.
    pub model: Option<String>,
    pub prompt: String,
    pub skills: BTreeSet<String>,
    pub groups: BTreeSet<String>,
    pub tools: BTreeSet<String>,
    pub rounds: u32,
    pub capture_raw: bool,
}

impl Default for Draft {
    fn default() -> Self {
        Draft {
            model: None,
            prompt: String::new(),
            skills: BTreeSet::new(),
            groups: BTreeSet::new(),
            tools: BTreeSet::new(),
            rounds: DEFAULT_ROUNDS,
            capture_raw: false,
        }
    }
}

impl Draft {
    pub(super) fn read(pairs: Vec<(String, String)>) -> Draft {
        let mut draft = Draft::default();
        for (key, value) in pairs {
            match key.as_str() {
                "model" => draft.model = Some(value).filter(|name| !name.is_empty()),
                "prompt" => draft.prompt = value,
                "skills" => {
                    draft.skills.insert(value);
                }
                "groups" => {
                    draft.groups.insert(value);
                }
                "tools" => {
                    draft.tools.insert(value);
                }
                // The form's own hint: a number it cannot read or one out
                // of range becomes the nearest the app takes.
                "rounds" => {
                    draft.rounds = value
                        .trim()
                        .parse()
                        .unwrap_or(DEFAULT_ROUNDS)
                        .clamp(1, MAX_ROUNDS);
                }
                "capture_raw" => draft.capture_raw = true,
                _ => {}
            }
        }
        draft
    }

    /// The run it asks for: the ticked groups and tools, which the app
    /// layer turns into the run's selection ([`RunRequest::selection`]).
    pub(super) fn request(&self) -> RunRequest {
        RunRequest {
            skills: self.skills.iter().cloned().collect(),
            max_rounds: self.rounds,
            tools: if self.tools.is_empty() {
                Selection::All
            } else {
                Selection::Only(self.tools.clone())
            },
            groups: self.groups.clone(),
            capture_raw: self.capture_raw,
            model: self.model.clone(),
            ..RunRequest::new(self.prompt.clone())
        }
    }
}
