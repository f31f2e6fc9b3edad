//! What a run has read so far: the exposure gate 9 decides from
//! (docs/exposure.md).
//!
//! The eight gates decide from a run's configuration before it starts.
//! Gate 9 decides from what its tool results have already brought into the
//! model's context: the most sensitive class of data
//! ([`Declaration::data`]) and whether text written by others
//! ([`Declaration::content`]) entered it, each with the call that raised
//! it. Prompt injection needs three things at once: private data,
//! untrusted content and a way out. The exposure tells the gates when the
//! first two are present, so the third can be taken away.
//!
//! ```
//! use tool_core::exposure::Exposure;
//! use tool_core::{Content, DataClass};
//!
//! let mut exposure = Exposure::default();
//! assert!(exposure.is_empty());
//! let rose = exposure.record("get_page_content", "call-1", DataClass::Internal, Content::Untrusted);
//! assert!(rose.untrusted && rose.data);
//! // A second read of the same kind raises nothing: the first call is kept.
//! let rose = exposure.record("get_page_content", "call-2", DataClass::Internal, Content::Untrusted);
//! assert!(!rose.any());
//! assert_eq!(exposure.untrusted.as_ref().unwrap().call, "call-1");
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{Content, DataClass, Declaration, Outcome, ToolError};

/// Whether an outcome brought what the tool returns into the caller's
/// context: its output, or an error the tool itself wrote (which may quote
/// what it read). A refusal, or an error the host wrote (bad arguments, a
/// timeout), brings nothing of the tool's. A proposal brings in the values
/// it would write (a door shows its caller those, never the words meant
/// for the approver): something only when one holds text the caller did
/// not send ([`Proposal::carries_text_not_sent`](crate::Proposal::carries_text_not_sent)).
pub fn brings_in(outcome: &Result<Outcome, ToolError>) -> bool {
    match outcome {
        Ok(Outcome::Done(_)) => true,
        Ok(Outcome::Proposed(proposal)) => proposal.carries_text_not_sent(),
        Err(error) => tool_wrote(error),
    }
}

/// The trust of what a result brings in: untrusted when the tool declared
/// so, and also, whatever it declared, when the result carries text a
/// person wrote (`carries_authored`: the call read an
/// [`Authored`](crate::Authored) value, [`ToolOutput::carries_authored`](crate::ToolOutput::carries_authored)). The declaration is an upper
/// bound on trust the data can only lower.
pub fn content_of(declaration: &Declaration, carries_authored: bool) -> Content {
    if carries_authored {
        Content::Untrusted
    } else {
        declaration.content
    }
}

/// Whether a call's `outcome` brings in text others wrote: a result that
/// carries it ([`ToolOutput::carries_authored`](crate::ToolOutput::carries_authored)),
/// a proposal whose values hold text its caller did not send
/// ([`Proposal::carries_text_not_sent`](crate::Proposal::carries_text_not_sent)),
/// or a failure the tool wrote after reading a person's text
/// ([`ToolError::carries_authored`]).
pub fn carries_authored(outcome: &Result<Outcome, ToolError>) -> bool {
    match outcome {
        Ok(Outcome::Done(output)) => output.carries_authored(),
        Ok(Outcome::Proposed(proposal)) => proposal.carries_text_not_sent(),
        Err(error) => error.carries_authored(),
    }
}

/// Whether the tool itself wrote `error`'s text (its failure, transient
/// or not), rather than the host (a refusal, bad arguments, a timeout, a
/// cancellation).
pub fn tool_wrote(error: &ToolError) -> bool {
    matches!(
        error,
        ToolError::Failed { .. } | ToolError::Transient { .. }
    )
}

/// The call that raised an exposure: the tool and the call's id (the
/// model's call id in a run, the request's in a single call).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RaisedBy {
    /// The tool whose result raised it.
    pub tool: String,
    /// The id of that call.
    pub call: String,
}

impl fmt::Display for RaisedBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` (call {})", self.tool, self.call)
    }
}

/// The most sensitive class of data a run's tool results carried, and the
/// first call that carried it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DataExposure {
    /// The class.
    pub class: DataClass,
    /// The first call whose result was of that class.
    pub by: RaisedBy,
}

/// What a run (or an MCP session, or a caller over a window) has read.
/// Only ever rises: nothing read can be unread.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Exposure {
    /// The most sensitive data read so far, above public; `None` while
    /// only public data was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<DataExposure>,
    /// The first call whose result could carry text others wrote; `None`
    /// while only trusted results were read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub untrusted: Option<RaisedBy>,
}

/// What one result raised ([`Exposure::record`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[must_use = "a rise changes what the next round may be offered"]
pub struct Rise {
    /// The data class rose.
    pub data: bool,
    /// Untrusted content entered for the first time.
    pub untrusted: bool,
}

impl Rise {
    /// Whether anything rose.
    pub fn any(self) -> bool {
        self.data || self.untrusted
    }
}

impl Exposure {
    /// The most sensitive class read; public before anything else is, so
    /// public results raise nothing.
    pub fn data_class(&self) -> DataClass {
        self.data
            .as_ref()
            .map_or(DataClass::Public, |read| read.class)
    }

    /// Whether nothing has been read.
    pub fn is_empty(&self) -> bool {
        self.data.is_none() && self.untrusted.is_none()
    }

    /// Whether a result of class `data` and trust `content` would raise it.
    pub fn raised_by(&self, data: DataClass, content: Content) -> bool {
        data > self.data_class() || (content == Content::Untrusted && self.untrusted.is_none())
    }

    /// Records that call `call` of `tool` returned a result of class `data`
    /// and trust `content`, and says what rose.
    pub fn record(&mut self, tool: &str, call: &str, data: DataClass, content: Content) -> Rise {
        let by = || RaisedBy {
            tool: tool.to_owned(),
            call: call.to_owned(),
        };
        let mut rise = Rise::default();
        if data > self.data_class() {
            self.data = Some(DataExposure {
                class: data,
                by: by(),
            });
            rise.data = true;
        }
        if content == Content::Untrusted && self.untrusted.is_none() {
            self.untrusted = Some(by());
            rise.untrusted = true;
        }
        rise
    }

    /// [`record`](Self::record) of a result of the tool `declaration`
    /// declares, whose trust is `content` ([`content_of`]).
    pub fn record_result(
        &mut self,
        declaration: &Declaration,
        content: Content,
        call: &str,
    ) -> Rise {
        self.record(&declaration.name, call, declaration.data, content)
    }

    /// Takes in everything `other` read (the higher class, the earlier
    /// untrusted call), as when two windows of one caller meet.
    pub fn absorb(&mut self, other: &Exposure) -> Rise {
        let mut rise = Rise::default();
        if let Some(read) = &other.data
            && self
                .data
                .as_ref()
                .is_none_or(|mine| read.class > mine.class)
        {
            self.data = Some(read.clone());
            rise.data = true;
        }
        if self.untrusted.is_none() && other.untrusted.is_some() {
            self.untrusted.clone_from(&other.untrusted);
            rise.untrusted = true;
        }
        rise
    }
}

impl fmt::Display for Exposure {
    /// One line for people: `personal data (from …); untrusted content
    /// (from …)`, or `nothing read`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.data, &self.untrusted) {
            (None, None) => f.write_str("nothing read"),
            (data, untrusted) => {
                if let Some(data) = data {
                    write!(f, "{} data (from {})", data.class, data.by)?;
                }
                if let Some(by) = untrusted {
                    if data.is_some() {
                        f.write_str("; ")?;
                    }
                    write!(f, "untrusted content (from {by})")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_class_only_rises_and_keeps_the_first_call_that_reached_it() {
        let mut exposure = Exposure::default();
        let rose = exposure.record("a", "1", DataClass::Internal, Content::Trusted);
        assert_eq!(
            rose,
            Rise {
                data: true,
                untrusted: false
            }
        );
        assert!(
            !exposure
                .record("b", "2", DataClass::Public, Content::Trusted)
                .any()
        );
        assert!(
            !exposure
                .record("c", "3", DataClass::Internal, Content::Trusted)
                .any()
        );
        let rose = exposure.record("d", "4", DataClass::Personal, Content::Trusted);
        assert!(rose.data && !rose.untrusted);
        let data = exposure.data.as_ref().unwrap();
        assert_eq!(
            (data.class, data.by.call.as_str()),
            (DataClass::Personal, "4")
        );
        assert_eq!(exposure.to_string(), "personal data (from `d` (call 4))");
    }

    #[test]
    fn absorbing_takes_the_higher_class_and_the_earlier_untrusted_call() {
        let mut mine = Exposure::default();
        let _ = mine.record("a", "1", DataClass::Public, Content::Untrusted);
        let mut theirs = Exposure::default();
        let _ = theirs.record("b", "2", DataClass::Confidential, Content::Untrusted);
        let rose = mine.absorb(&theirs);
        assert!(rose.data && !rose.untrusted);
        assert_eq!(mine.untrusted.as_ref().unwrap().call, "1");
        assert_eq!(mine.data.as_ref().unwrap().class, DataClass::Confidential);
    }

    #[test]
    fn an_exposure_round_trips_and_refuses_unknown_fields() {
        let mut exposure = Exposure::default();
        let _ = exposure.record("a", "1", DataClass::Personal, Content::Untrusted);
        let text = serde_json::to_string(&exposure).unwrap();
        assert_eq!(serde_json::from_str::<Exposure>(&text).unwrap(), exposure);
        assert_eq!(
            serde_json::from_str::<Exposure>("{}").unwrap(),
            Exposure::default()
        );
        assert!(serde_json::from_str::<Exposure>(r#"{"tainted": true}"#).is_err());
    }
}
