use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema, tool_core::Arguments)]
#[serde(untagged)]
enum Either {
    Number(u32),
    Text(String),
}

fn main() {}
