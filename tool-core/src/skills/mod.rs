//! Agent Skills: reading `SKILL.md` files, their `allowed-tools`, and what
//! the effective skills allow a run (gate 6 of [`crate::gates`]).
//!
//! Reading files (`read_skill`, `SkillRef::read`, the call examples,
//! `check_skill_tools`) needs the default feature `skills`; the tokenizer,
//! `SkillRef`, `EffectiveSkills` and gate 6 do not.
//!
//! - [`read_skill`] reads a `SKILL.md`: YAML front matter between `---` lines,
//!   then Markdown. Every problem is a [`Diagnostic`] with a [`Severity`], a
//!   stable [`Code`], a message that says the fix, and a 1-based [`Position`].
//!   [`SkillRef::read`] turns a `SKILL.md` into the skill a run uses, in one
//!   call.
//! - [`AllowedTools`] is the `allowed-tools` field: absent, or declared (a list
//!   of [`ToolPattern`]s, possibly empty). [`tokenize`] reads one string of
//!   it; [`check_skill_tools`] checks a skill's tool names against the
//!   registered tools ([`Registry::known_tools`](crate::Registry::known_tools)).
//! - [`EffectiveSkills::select`] picks the skills that count for a run; gate 6
//!   of [`crate::gates`] offers only what their `allowed-tools` allow, and
//!   [`compose_skill_block`] gives the skills' text under the prompt's byte
//!   budget.
//!
//! ```
//! # #[cfg(feature = "skills")]
//! # fn main() {
//! use tool_core::ScopeKind;
//! use tool_core::skills::{read_skill, check_skill_tools, Code, KnownTool, SkillRef, TrustLevel};
//!
//! let text = "---\nname: review\ndescription: Reviews diffs.\nallowed-tools: Read Bash(git diff:*)\n---\nBody\n";
//!
//! // The skill a run uses: give it to the run's `RunInputs::skills`.
//! let skill = SkillRef::read(text, "review", TrustLevel(1)).expect("a valid skill");
//! assert_eq!(skill.text, "Body\n");
//!
//! // Its tool names against the host's tools (`registry.known_tools()`).
//! let manifest = read_skill(text, "review").manifest.expect("front matter");
//! let known = [KnownTool { name: "Read", scope: None }, KnownTool { name: "Bash", scope: Some(ScopeKind::Command) }];
//! assert!(check_skill_tools(&manifest, &known).is_empty());
//! let codes: Vec<Code> = check_skill_tools(&manifest, &known[..1]).iter().map(|d| d.code).collect();
//! assert_eq!(codes, [Code::UnresolvedTool]);
//! # }
//! # #[cfg(not(feature = "skills"))]
//! # fn main() {}
//! ```
//!
//! # Diagnostic codes
//!
//! A file is valid when no diagnostic is an error. Codes are stable: a code
//! keeps its meaning, and a retired code is not reused.
//!
//! | Code | Severity | Meaning |
//! |------|----------|---------|
//! | S001 | error | the file does not start with a `---` line |
//! | S002 | error | the front matter has no closing `---` line |
//! | S003 | error | the front matter is over [`MAX_FRONT_MATTER_BYTES`] (64 KiB) |
//! | S004 | error | the front matter is not valid YAML |
//! | S005 | error | a YAML alias or anchor (refused, so alias bombs cannot expand) |
//! | S006 | error | the front matter is not a mapping |
//! | S007 | error | the YAML nests too deeply |
//! | S008 | error | a key is set twice |
//! | S010 | error | a field the specification does not define |
//! | S011 | error | `name` is missing |
//! | S012 | error | `name` breaks the rules: 1–64 of `a-z`, `0-9`, `-`; no leading, trailing or doubled `-` |
//! | S013 | error | `name` differs from the folder's name |
//! | S014 | error | `description` is missing or empty |
//! | S015 | error | `description` is over 1,024 characters |
//! | S016 | error | `compatibility` is empty or over 500 characters |
//! | S017 | error | a field holds the wrong kind of value |
//! | S018 | warning | a number or boolean where text is expected, taken as written |
//! | S020 | warning | `allowed-tools` is null or empty: it declares zero tools |
//! | S021 | warning | `allowed-tools` separates tokens with commas |
//! | S022 | error | `allowed-tools` is a map, number or boolean: nothing is granted |
//! | S023 | error | an `allowed-tools` list item is not a string: it grants nothing |
//! | S024 | error | an unterminated `(` |
//! | S025 | error | a stray `)` |
//! | S026 | error | an empty scope, `Tool()` |
//! | S027 | error | a scope with no tool name |
//! | S028 | error | an unanchored `*` in a tool name (only `mcp__server__*` is allowed) |
//! | S029 | error | a tool name with characters outside letters, digits, `_`, `-`, `.` |
//! | S030 | warning | a duplicate token, folded into one |
//! | S031 | error | text right after a scope's `)` |
//! | S032 | error | a scope on a whole MCP server |
//! | S033 | error | `allowed-tools` is set more than once: the skill allows no tools |
//! | S034 | error | a near-miss spelling of `allowed-tools` (`allowed_tools`, `allowedTools`, `Allowed-Tools`, …): the skill allows no tools |
//! | S035 | error | a `\` outside a scope, or one that escapes the `)` meant to close the scope |
//! | S040 | warning | a token names no registered tool (with "did you mean") |
//! | S041 | warning | a scope on a tool with no `scope` field: cannot be enforced, grants nothing |
//! | S042 | warning | an MCP server with no registered tool |
//! | S050 | warning | `description` opens with when to use the skill (`Use when …`), not with what it does |
//! | S051 | warning | `description` never says when to use the skill (no `Use when …`, `Use before …`, `Use for …` or the like) |
//! | S052 | warning | `description` is shorter than a useful sentence (under 8 words) |
//! | S060 | error | a call example under `metadata.allowed-tools-admits` is refused by `allowed-tools` (names the example and that tool's tokens) |
//! | S061 | error | a call example under `metadata.allowed-tools-refuses` is admitted by `allowed-tools` (names the example and the token that admitted it) |
//! | S062 | error | a call example, or a scope kind stated as `metadata.allowed-tools-kind-<tool>`, cannot be read |
//! | S063 | warning | a call example is not checked: its tool is not registered and the skill states no scope kind for it |
//!
//! S050–S052 read English: a description mostly in another script is not
//! checked for them, nor is one already refused as too long (S015).
//!
//! S060–S063 come from call examples that prove what `allowed-tools`
//! admits (docs/skills-examples.md): [`read_skill`] reads them (S062) and
//! [`check_examples`] runs them against the host's tools, through gate 6's
//! own resolution and matchers.

mod allow_list;
mod allowed_tools;
mod block;
#[cfg(feature = "skills")]
mod check;
#[cfg(feature = "skills")]
mod description;
mod diagnostic;
mod distance;
mod effective;
#[cfg(feature = "skills")]
mod examples;
mod locate;
#[cfg(feature = "skills")]
mod manifest;
mod resolve;
mod scope;
#[cfg(feature = "skills")]
mod yaml;

pub use allow_list::Allowance;
pub(crate) use allow_list::{SkillsVerdicts, allowances};
pub use allowed_tools::{AllowedTools, ToolPattern, ToolTarget, tokenize};
pub use block::{Dropped, compose_skill_block};
#[cfg(feature = "skills")]
pub use check::{check_examples, check_skill_tools};
pub use diagnostic::{Code, Diagnostic, Position, Severity};
#[cfg(feature = "skills")]
pub use effective::InvalidSkill;
pub use effective::{EffectiveSkills, SkillRef, TrustLevel};
#[cfg(feature = "skills")]
pub use examples::{ADMITS_KEY, CallExample, CallExamples, Expected, KIND_KEY_PREFIX, REFUSES_KEY};
#[cfg(feature = "skills")]
pub use manifest::{SkillManifest, SkillReport, read_skill};
pub use resolve::{KnownTool, check_allowed_tools};
pub use scope::ScopePattern;
#[cfg(feature = "skills")]
pub use yaml::MAX_FRONT_MATTER_BYTES;
