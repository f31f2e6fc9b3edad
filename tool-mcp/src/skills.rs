//! The offered skills ([`Skills`](crate::Skills)) in the MCP Skills
//! extension's form (`io.modelcontextprotocol/skills`, SEP-2640, as rmcp
//! 3.11 models it): `skills/list` and `skills/get` give each skill's
//! front matter (whole) and the manifest of its files (SHA-256 and size, as
//! approved), `resources/list` each skill's `SKILL.md`, and
//! `resources/read` a file's bytes.
//!
//! A skill's URI is `skill://NAME/SKILL.md`, a file's
//! `skill://NAME/PATH`, each segment percent-encoded. A URI from a client
//! is only ever compared with the URIs made here from the offered skills,
//! never decoded into a path.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use rmcp::model::{
    ErrorData, Resource, ResourceContents, Skill, SkillFrontmatter, SkillResource, SkillResources,
};

use crate::host::{OfferedSkill, SkillFile};

/// The skills as the extension lists them, in name order.
pub(crate) fn skills(offered: &[OfferedSkill]) -> Vec<Skill> {
    offered.iter().map(skill).collect()
}

/// The skill whose `SKILL.md` is at `uri`, if offered.
pub(crate) fn skill_at(offered: &[OfferedSkill], uri: &str) -> Result<Skill, ErrorData> {
    offered
        .iter()
        .find(|s| file_uri(&s.name, "SKILL.md") == uri)
        .map(skill)
        .ok_or_else(|| ErrorData::invalid_params(format!("no skill `{uri}`"), None))
}

/// Each skill's `SKILL.md`, for `resources/list`.
pub(crate) fn resources(offered: &[OfferedSkill]) -> Vec<Resource> {
    offered
        .iter()
        .map(|s| {
            Resource::new(file_uri(&s.name, "SKILL.md"), s.name.clone())
                .with_description(s.description.clone())
                .with_mime_type("text/markdown")
        })
        .collect()
}

/// The skill and the file `uri` names, if an offered skill has it.
pub(crate) fn file_at<'s>(
    offered: &'s [OfferedSkill],
    uri: &str,
) -> Result<(&'s OfferedSkill, &'s SkillFile), ErrorData> {
    offered
        .iter()
        .find_map(|s| {
            s.files
                .iter()
                .find(|f| file_uri(&s.name, &f.path) == uri)
                .map(|f| (s, f))
        })
        .ok_or_else(|| not_found(uri))
}

/// The answer for a URI no offered skill has (or whose file changed).
pub(crate) fn not_found(uri: &str) -> ErrorData {
    // The URI in the error's data, as SEP-2164 asks.
    ErrorData::resource_not_found(
        format!("no resource `{uri}`"),
        Some(serde_json::json!({ "uri": uri })),
    )
}

/// A file's bytes as `resources/read` carries them: text when they are
/// UTF-8 without NUL, else base64.
pub(crate) fn contents(uri: &str, path: &str, bytes: Vec<u8>) -> ResourceContents {
    let contents = match String::from_utf8(bytes) {
        Ok(text) if !text.contains('\0') => ResourceContents::text(text, uri),
        Ok(text) => ResourceContents::blob(BASE64.encode(text.as_bytes()), uri),
        Err(error) => ResourceContents::blob(BASE64.encode(error.as_bytes()), uri),
    };
    if path.ends_with(".md") {
        contents.with_mime_type("text/markdown")
    } else {
        contents
    }
}

fn skill(offered: &OfferedSkill) -> Skill {
    let files = offered
        .files
        .iter()
        .map(|file| {
            SkillResource::new(
                file_uri(&offered.name, &file.path),
                format!("sha256:{}", file.sha256),
                file.size,
            )
        })
        .collect();
    // The front matter whole: the extension's entry carries every field
    // of the `SKILL.md`, not only the two it names.
    let mut front_matter = SkillFrontmatter::new(offered.name.clone(), offered.description.clone());
    for (key, value) in &offered.front_matter {
        if key != "name" && key != "description" {
            front_matter = front_matter.with_field(key.clone(), value.clone());
        }
    }
    Skill::new(
        file_uri(&offered.name, "SKILL.md"),
        front_matter,
        SkillResources::Files(files),
    )
}

/// `skill://NAME/PATH`, each segment percent-encoded.
fn file_uri(name: &str, path: &str) -> String {
    let path: Vec<String> = path.split('/').map(segment).collect();
    format!("skill://{}/{}", segment(name), path.join("/"))
}

/// A path segment: unreserved bytes as they are, every other as `%XX`.
fn segment(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(byte).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::file_uri;

    #[test]
    fn segments_are_percent_encoded_and_slashes_kept() {
        assert_eq!(file_uri("pdf", "SKILL.md"), "skill://pdf/SKILL.md");
        assert_eq!(
            file_uri("pdf", "scripts/a b%.py"),
            "skill://pdf/scripts/a%20b%25.py"
        );
    }
}
