//! What a host offers besides its tools ([`Resources`], [`Prompts`],
//! [`Completions`], each handed over or not), as the server serves it.
//!
//! The server merges them with the skills a host offers ([`Skills`]):
//! skills come first, and a skill's name or URI wins over the host's own.
//! It checks what MCP defines before the host is asked: a prompt must be
//! listed to be got, and its required arguments present.
//!
//! [`Skills`]: crate::Skills
//! [`Resources`]: crate::Resources
//! [`Prompts`]: crate::Prompts
//! [`Completions`]: crate::Completions

use rmcp::model::{
    ErrorData, GetPromptResult, JsonObject, Prompt, Resource, ResourceContents, ResourceTemplate,
};
use tool_core::Actor;
use tool_core::client::{AskError, ClientChannel};

use crate::host::{McpHost, OfferedSkill, host_failed};
use crate::skills;

/// Every prompt offered to `actor`: the skills, then the host's prompts
/// whose names no skill takes.
pub(crate) async fn prompts(
    host: &dyn McpHost,
    actor: &Actor,
    offered: &[OfferedSkill],
) -> Result<Vec<Prompt>, ErrorData> {
    let mut listed: Vec<Prompt> = offered
        .iter()
        .map(|skill| Prompt::new(skill.name.clone(), Some(skill.description.clone()), None))
        .collect();
    if let Some(prompts) = host.prompts() {
        for prompt in prompts.list(actor).await.map_err(host_failed)? {
            if !offered.iter().any(|skill| skill.name == prompt.name) {
                listed.push(prompt);
            }
        }
    }
    Ok(listed)
}

/// What `prompts/get` asked: a prompt by name, with its arguments, and
/// the client a prompt that asks first puts its questions to.
pub(crate) struct Asked<'a> {
    pub(crate) name: &'a str,
    pub(crate) arguments: JsonObject,
    pub(crate) client: &'a dyn ClientChannel,
}

/// The prompt `asked.name` for `actor`: a skill's instructions, or the
/// host's prompt once its required arguments are there.
pub(crate) async fn prompt(
    host: &dyn McpHost,
    actor: &Actor,
    offered: Vec<OfferedSkill>,
    asked: Asked<'_>,
) -> Result<GetPromptResult, ErrorData> {
    let Asked {
        name,
        arguments,
        client,
    } = asked;
    if let Some(skill) = offered.into_iter().find(|s| s.name == name) {
        let message = rmcp::model::PromptMessage::new_text(rmcp::model::Role::User, skill.text);
        return Ok(GetPromptResult::new(vec![message]).with_description(skill.description));
    }
    let missing = || ErrorData::invalid_params(format!("no prompt `{name}`"), None);
    let prompts = host.prompts().ok_or_else(missing)?;
    let listed = prompts.list(actor).await.map_err(host_failed)?;
    let prompt = listed.iter().find(|p| p.name == name).ok_or_else(missing)?;
    for argument in prompt.arguments.iter().flatten() {
        if argument.required == Some(true) && !arguments.contains_key(&argument.name) {
            return Err(ErrorData::invalid_params(
                format!("prompt `{name}` needs the argument `{}`", argument.name),
                None,
            ));
        }
    }
    match prompts.get_asking(actor, name, &arguments, client).await {
        Ok(result) => Ok(result),
        // The client was asked, or could not be: the prompt's own answer,
        // not a failure of the host.
        Err(error) if error.downcast_ref::<AskError>().is_some() => {
            Err(ErrorData::invalid_request(error.to_string(), None))
        }
        Err(error) => Err(host_failed(error)),
    }
}

/// Every resource offered to `actor`: the skills' `SKILL.md` files, then
/// the host's resources whose URIs no skill takes.
pub(crate) async fn resources(
    host: &dyn McpHost,
    actor: &Actor,
    offered: &[OfferedSkill],
) -> Result<Vec<Resource>, ErrorData> {
    let mut listed = skills::resources(offered);
    if let Some(resources) = host.resources() {
        for resource in resources.list(actor).await.map_err(host_failed)? {
            if !listed.iter().any(|r| r.uri == resource.uri) {
                listed.push(resource);
            }
        }
    }
    Ok(listed)
}

/// The host's resource templates for `actor`.
pub(crate) async fn templates(
    host: &dyn McpHost,
    actor: &Actor,
) -> Result<Vec<ResourceTemplate>, ErrorData> {
    match host.resources() {
        Some(resources) => resources.templates(actor).await.map_err(host_failed),
        None => Ok(Vec::new()),
    }
}

/// The contents at `uri` for `actor`: a file of an offered skill, with the
/// bytes that were approved, or the host's resource.
pub(crate) async fn read(
    host: &dyn McpHost,
    actor: &Actor,
    offered: &[OfferedSkill],
    uri: &str,
) -> Result<Vec<ResourceContents>, ErrorData> {
    if let (Some(host_skills), Ok((skill, file))) = (host.skills(), skills::file_at(offered, uri)) {
        let bytes = host_skills
            .read(skill, file)
            .await
            .map_err(host_failed)?
            .ok_or_else(|| skills::not_found(uri))?;
        return Ok(vec![skills::contents(uri, &file.path, bytes)]);
    }
    let Some(resources) = host.resources() else {
        return Err(skills::not_found(uri));
    };
    resources
        .read(actor, uri)
        .await
        .map_err(host_failed)?
        .ok_or_else(|| skills::not_found(uri))
}
