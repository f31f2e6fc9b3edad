//! The `configuration` group (administrators): the sites and their
//! settings, secrets redacted.

mod site_config;

pub use site_config::GetSiteConfig;
