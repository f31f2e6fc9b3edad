//! `host-example tools`.

use super::Failure;

pub fn run() -> Result<(), Failure> {
    let registry = host_example::registry().map_err(|error| Failure::new(error.to_string()))?;
    out!("{}", host_example::tools_table(&registry));
    Ok(())
}
