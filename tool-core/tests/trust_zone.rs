//! Gate 8: a tool whose data class is above the run's trust-zone ceiling is
//! not offered, and an undeclared class counts as the strictest.

use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::gates::{Denial, Gates, HostSettings, RunConfig, RunInputs, Selection};
use tool_core::{Actor, DataClass, Execute, Registry, Tool, ToolContext, ToolError, ToolOutput};

macro_rules! tool {
    ($name:ident, $($key:tt)*) => {
        /// A test tool.
        #[derive(Tool, Deserialize, JsonSchema)]
        #[tool(group = "zone", effect = "read", $($key)*)]
        struct $name {}

        impl Execute for $name {
            async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
                Ok(ToolOutput::text(stringify!($name)))
            }
        }
    };
}

tool!(PublicData, data = "public");
tool!(InternalData, data = "internal");
tool!(ConfidentialData, data = "confidential");
tool!(PersonalData, data = "personal");
tool!(Unclassified,);

fn offered(ceiling: DataClass) -> Vec<String> {
    let registry = Registry::linked().unwrap();
    let settings = HostSettings::default();
    let config = RunConfig {
        trust_zone: ceiling,
        ..RunConfig::default()
    };
    let actor = Actor {
        id: "ada".into(),
        admin: true,
    };
    let inputs = RunInputs {
        settings: &settings,
        actor: Some(&actor),
        config: &config,
        skills: &[],
        selection: &Selection::All,
    };
    let resolution = Gates::new(&registry, inputs).resolve();
    for (tool, denial) in &resolution.denials {
        assert!(
            matches!(denial, Denial::TrustZone { ceiling: c, .. } if *c == ceiling),
            "{tool}: {denial:?}"
        );
    }
    resolution.grant.tool_names().map(str::to_owned).collect()
}

#[test]
fn the_ceiling_admits_its_class_and_below() {
    assert_eq!(offered(DataClass::Public), ["public_data"]);
    assert_eq!(
        offered(DataClass::Internal),
        ["internal_data", "public_data"]
    );
    assert_eq!(
        offered(DataClass::Confidential),
        ["confidential_data", "internal_data", "public_data"]
    );
}

#[test]
fn an_unclassified_tool_counts_as_personal() {
    assert_eq!(Unclassified::DECLARATION.data, DataClass::Personal);
    assert!(!offered(DataClass::Confidential).contains(&"unclassified".to_owned()));
    assert!(offered(DataClass::Personal).contains(&"unclassified".to_owned()));
}

#[test]
fn the_default_ceiling_is_internal() {
    assert_eq!(RunConfig::default().trust_zone, DataClass::Internal);
    assert_eq!(offered(RunConfig::default().trust_zone).len(), 2);
}

#[test]
fn the_denial_names_both_classes() {
    let denial = Denial::TrustZone {
        data: DataClass::Personal,
        ceiling: DataClass::Internal,
    };
    assert_eq!(
        denial.to_string(),
        "the tool returns personal data, above the run's trust-zone ceiling `internal`"
    );
}
