//! The suite's resources, prompts and completions, served through
//! tool-mcp's API by `toolkit-conformance` (each answers the scenario of
//! the same name; the suite's text is quoted beside each).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use tool_core::Actor;
use tool_core::client::ClientChannel;
use tool_mcp::rmcp::model::{
    ArgumentInfo, CompletionInfo, ContentBlock, GetPromptResult, JsonObject, Prompt,
    PromptArgument, PromptMessage, Reference, Resource, ResourceContents, ResourceTemplate, Role,
};
use tool_mcp::{Completions, Failure, Prompts, Resources};

use crate::input_required::{filled, form};
use crate::tools::RED_PIXEL_PNG;

/// The prompt that asks its client before it is given.
const INPUT_REQUIRED_PROMPT: &str = "test_input_required_result_prompt";

/// `test://static-text`, `test://static-binary`, `test://watched-resource`
/// and the template `test://template/{id}/data`; subscriptions hear of the
/// updates sent on [`SuiteResources::updated`].
#[derive(Debug, Clone)]
pub struct SuiteResources {
    updates: tokio::sync::broadcast::Sender<String>,
}

impl Default for SuiteResources {
    fn default() -> Self {
        SuiteResources {
            updates: tokio::sync::broadcast::Sender::new(16),
        }
    }
}

impl SuiteResources {
    /// Announces that the resource at `uri` changed.
    pub fn updated(&self, uri: &str) {
        // No subscriber: nobody to tell.
        let _ = self.updates.send(uri.to_owned());
    }
}

const TEMPLATE_PREFIX: &str = "test://template/";
const TEMPLATE_SUFFIX: &str = "/data";

#[async_trait::async_trait]
impl Resources for SuiteResources {
    async fn list(&self, _actor: &Actor) -> Result<Vec<Resource>, Failure> {
        Ok(vec![
            Resource::new("test://static-text", "static-text").with_mime_type("text/plain"),
            Resource::new("test://static-binary", "static-binary").with_mime_type("image/png"),
            Resource::new("test://watched-resource", "watched-resource")
                .with_mime_type("text/plain"),
        ])
    }

    async fn templates(&self, _actor: &Actor) -> Result<Vec<ResourceTemplate>, Failure> {
        Ok(vec![
            ResourceTemplate::new("test://template/{id}/data", "template-data")
                .with_mime_type("application/json"),
        ])
    }

    async fn read(
        &self,
        _actor: &Actor,
        uri: &str,
    ) -> Result<Option<Vec<ResourceContents>>, Failure> {
        // "Implement resource `test://static-text` that returns ... text"
        let contents = match uri {
            "test://static-text" => {
                ResourceContents::text("This is the content of the static text resource.", uri)
                    .with_mime_type("text/plain")
            }
            // "... `test://static-binary` ... `blob`: <base64-encoded-png>"
            "test://static-binary" => ResourceContents::blob(BASE64.encode(RED_PIXEL_PNG), uri)
                .with_mime_type("image/png"),
            "test://watched-resource" => {
                ResourceContents::text("The watched resource.", uri).with_mime_type("text/plain")
            }
            // "When client requests `test://template/123/data`, substitute
            // `{id}` with `123`"
            _ => {
                let Some(id) = uri
                    .strip_prefix(TEMPLATE_PREFIX)
                    .and_then(|rest| rest.strip_suffix(TEMPLATE_SUFFIX))
                    .filter(|id| !id.is_empty() && !id.contains('/'))
                else {
                    return Ok(None);
                };
                let data = serde_json::json!({
                    "id": id,
                    "templateTest": true,
                    "data": format!("Data for ID: {id}"),
                });
                ResourceContents::text(data.to_string(), uri).with_mime_type("application/json")
            }
        };
        Ok(Some(vec![contents]))
    }

    fn updates(&self) -> Option<tokio::sync::broadcast::Receiver<String>> {
        Some(self.updates.subscribe())
    }
}

/// `test_simple_prompt`, `test_prompt_with_arguments`,
/// `test_prompt_with_embedded_resource` and `test_prompt_with_image`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SuitePrompts;

fn required(name: &str, description: &str) -> PromptArgument {
    PromptArgument::new(name)
        .with_description(description)
        .with_required(true)
}

#[async_trait::async_trait]
impl Prompts for SuitePrompts {
    async fn list(&self, _actor: &Actor) -> Result<Vec<Prompt>, Failure> {
        Ok(vec![
            Prompt::new(
                "test_simple_prompt",
                Some("A simple prompt for testing."),
                None,
            ),
            Prompt::new(
                "test_prompt_with_arguments",
                Some("A prompt with two arguments."),
                Some(vec![
                    required("arg1", "First test argument"),
                    required("arg2", "Second test argument"),
                ]),
            ),
            Prompt::new(
                "test_prompt_with_embedded_resource",
                Some("A prompt that embeds a resource."),
                Some(vec![required(
                    "resourceUri",
                    "URI of the resource to embed",
                )]),
            ),
            Prompt::new(
                "test_prompt_with_image",
                Some("A prompt with an image."),
                None,
            ),
            Prompt::new(
                INPUT_REQUIRED_PROMPT,
                Some("A prompt that asks the client for its context first."),
                None,
            ),
        ])
    }

    /// `test_input_required_result_prompt` asks the person for the
    /// context first (`input-required-result-non-tool-request`); the
    /// others ask nothing.
    async fn get_asking(
        &self,
        actor: &Actor,
        name: &str,
        arguments: &JsonObject,
        client: &dyn ClientChannel,
    ) -> Result<GetPromptResult, Failure> {
        if name != INPUT_REQUIRED_PROMPT {
            return self.get(actor, name, arguments).await;
        }
        let answer = client
            .elicit_as(
                "user_context",
                form("What context should the prompt use?", "context", "string"),
            )
            .await?;
        let context = filled(answer, "context").map_err(|error| error.to_string())?;
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Answer within this context: {context}"),
        )]))
    }

    async fn get(
        &self,
        _actor: &Actor,
        name: &str,
        arguments: &JsonObject,
    ) -> Result<GetPromptResult, Failure> {
        let argument = |key: &str| {
            arguments
                .get(key)
                .and_then(|value| value.as_str())
                .unwrap_or_default()
                .to_owned()
        };
        let user = |content| PromptMessage::new(Role::User, content);
        let messages = match name {
            "test_simple_prompt" => vec![PromptMessage::new_text(
                Role::User,
                "This is a simple prompt for testing.",
            )],
            "test_prompt_with_arguments" => vec![PromptMessage::new_text(
                Role::User,
                format!(
                    "Prompt with arguments: arg1='{}', arg2='{}'",
                    argument("arg1"),
                    argument("arg2")
                ),
            )],
            "test_prompt_with_embedded_resource" => vec![
                user(ContentBlock::resource(
                    ResourceContents::text(
                        "Embedded resource content for testing.",
                        argument("resourceUri"),
                    )
                    .with_mime_type("text/plain"),
                )),
                PromptMessage::new_text(Role::User, "Please process the embedded resource above."),
            ],
            "test_prompt_with_image" => vec![
                user(ContentBlock::image(
                    BASE64.encode(RED_PIXEL_PNG),
                    "image/png",
                )),
                PromptMessage::new_text(Role::User, "Please analyze the image above."),
            ],
            other => return Err(format!("no prompt `{other}`").into()),
        };
        Ok(GetPromptResult::new(messages))
    }
}

/// Completes `test_prompt_with_arguments`' `arg1` from a fixed list, by
/// prefix.
#[derive(Debug, Clone, Copy, Default)]
pub struct SuiteCompletions;

#[async_trait::async_trait]
impl Completions for SuiteCompletions {
    async fn complete(
        &self,
        _actor: &Actor,
        reference: &Reference,
        argument: &ArgumentInfo,
    ) -> Result<CompletionInfo, Failure> {
        let values: Vec<String> = match reference {
            Reference::Prompt(prompt)
                if prompt.name == "test_prompt_with_arguments" && argument.name == "arg1" =>
            {
                ["paris", "park", "party"]
                    .into_iter()
                    .filter(|value| value.starts_with(&argument.value))
                    .map(str::to_owned)
                    .collect()
            }
            _ => Vec::new(),
        };
        Ok(CompletionInfo::new(values)?)
    }
}
