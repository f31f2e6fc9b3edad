//! The links a write may not break, checked on the draft state before it
//! is swapped in, so the memory site refuses what a database's foreign keys
//! would.

use crate::{PageId, SiteData, SiteError, Target};

/// Checks the links of each written target in `data`.
pub(super) fn check(data: &SiteData, touched: &[&Target]) -> Result<(), SiteError> {
    for target in touched {
        let broken = |reason: String| SiteError::invalid(target.to_string(), reason);
        match target {
            Target::Page(id) => {
                let Some(page) = data.pages.iter().find(|page| page.id == *id) else {
                    continue;
                };
                if let Some(parent) = page.parent {
                    if !has_page(data, parent) {
                        return Err(broken(format!("parent page {parent} does not exist")));
                    }
                    if under(data, parent, *id) {
                        return Err(broken("a page cannot move under itself".into()));
                    }
                }
                if let Some(original) = page.translation_of.filter(|of| !has_page(data, *of)) {
                    return Err(broken(format!("translated page {original} does not exist")));
                }
            }
            Target::Element(id) => {
                let Some(element) = data.elements.iter().find(|element| element.id == *id) else {
                    continue;
                };
                if !has_page(data, element.page) {
                    return Err(broken(format!("page {} does not exist", element.page)));
                }
                if !data
                    .columns
                    .iter()
                    .any(|column| column.id == element.column)
                {
                    return Err(broken(format!("column {} does not exist", element.column)));
                }
            }
            Target::File(id) => {
                let Some(file) = data.files.iter().find(|file| file.id == *id) else {
                    continue;
                };
                if !data
                    .storages
                    .iter()
                    .any(|storage| storage.id == file.storage)
                {
                    return Err(broken(format!("storage {} does not exist", file.storage)));
                }
            }
            // Record relations may point at rows a host keeps elsewhere
            // (`users` are accounts, not records), so they are not checked.
            Target::Record { .. } => {}
        }
    }
    Ok(())
}

fn has_page(data: &SiteData, id: PageId) -> bool {
    data.pages.iter().any(|page| page.id == id)
}

/// Whether `page` is `ancestor` or lies under it.
fn under(data: &SiteData, page: PageId, ancestor: PageId) -> bool {
    let mut current = Some(page);
    // Bounded by the page count, so corrupt data cannot loop forever.
    for _ in 0..=data.pages.len() {
        match current {
            None => return false,
            Some(id) if id == ancestor => return true,
            Some(id) => {
                current = data
                    .pages
                    .iter()
                    .find(|p| p.id == id)
                    .and_then(|p| p.parent)
            }
        }
    }
    true
}
