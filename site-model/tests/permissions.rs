//! Each demo user sees what the demo's docs say, and no more.

use futures_executor::block_on;
use site_model::{Accounts, MemorySite, PageId, Pages, Permissions, Records, StorageId, UserId};

const ROOT: PageId = PageId(1);
const PRODUCTS: PageId = PageId(2);
const TRAIL_PRO: PageId = PageId(7);
const CARGO_E_DELETED: PageId = PageId(11);
const NEWS: PageId = PageId(13);
const SPRING_NEWS: PageId = PageId(15);
const SERVICE: PageId = PageId(19);
const REPAIRS: PageId = PageId(20);
const OUTLET: PageId = PageId(33);
const PRODUCTS_GERMAN: PageId = PageId(102);

fn permissions(site: &MemorySite, user: u64) -> Permissions {
    block_on(site.permissions(UserId(user))).unwrap()
}

fn shows(site: &MemorySite, permissions: &Permissions, page: PageId) -> bool {
    block_on(permissions.may_show_page(page, site)).unwrap()
}

fn edits(site: &MemorySite, permissions: &Permissions, page: PageId) -> bool {
    block_on(permissions.may_edit_page(page, site)).unwrap()
}

fn reads(site: &MemorySite, permissions: &Permissions, table: &str) -> bool {
    permissions.may_read_table(&block_on(site.table(table)).unwrap())
}

#[test]
fn administrators_reach_everything() {
    let site = MemorySite::demo();
    for admin in [1, 2] {
        let permissions = permissions(&site, admin);
        assert_eq!(permissions, Permissions::administrator());
        for page in [ROOT, CARGO_E_DELETED, OUTLET] {
            assert!(shows(&site, &permissions, page));
        }
        assert!(reads(&site, &permissions, "api_clients"));
    }
}

#[test]
fn petra_works_on_products_only() {
    let site = MemorySite::demo();
    let petra = permissions(&site, 3);
    assert!(!petra.admin);
    assert!(shows(&site, &petra, PRODUCTS));
    assert!(shows(&site, &petra, TRAIL_PRO));
    assert!(
        shows(&site, &petra, PRODUCTS_GERMAN),
        "a translation follows its page"
    );
    assert!(edits(&site, &petra, TRAIL_PRO));
    assert!(
        !shows(&site, &petra, CARGO_E_DELETED),
        "deleted pages are gone for editors"
    );
    assert!(!shows(&site, &petra, ROOT));
    assert!(!shows(&site, &petra, NEWS));
    assert!(reads(&site, &petra, "products"));
    assert!(!reads(&site, &petra, "news"));
    assert!(!reads(&site, &petra, "api_clients"));
    assert!(petra.may_reach_storage(StorageId(2)));
    assert!(!petra.may_reach_storage(StorageId(1)));
}

#[test]
fn nils_works_on_news_only() {
    let site = MemorySite::demo();
    let nils = permissions(&site, 4);
    assert!(shows(&site, &nils, NEWS));
    assert!(shows(&site, &nils, SPRING_NEWS));
    assert!(edits(&site, &nils, SPRING_NEWS));
    assert!(!shows(&site, &nils, PRODUCTS));
    assert!(reads(&site, &nils, "news"));
    assert!(!reads(&site, &nils, "products"));
    assert!(nils.may_reach_storage(StorageId(1)) && nils.may_reach_storage(StorageId(2)));
}

#[test]
fn clara_sees_the_main_site_but_edits_service_and_reaches_one_storage() {
    let site = MemorySite::demo();
    let clara = permissions(&site, 5);
    for page in [ROOT, PRODUCTS, NEWS, SERVICE, REPAIRS] {
        assert!(shows(&site, &clara, page), "{page}");
    }
    assert!(!shows(&site, &clara, OUTLET), "another site's tree");
    assert!(!shows(&site, &clara, CARGO_E_DELETED));
    assert!(edits(&site, &clara, REPAIRS));
    assert!(!edits(&site, &clara, PRODUCTS));
    assert!(reads(&site, &clara, "news") && reads(&site, &clara, "products"));
    assert!(!clara.may_edit_table(&block_on(site.table("news")).unwrap()));
    assert!(!reads(&site, &clara, "api_clients"));
    assert!(clara.may_reach_storage(StorageId(1)));
    assert!(!clara.may_reach_storage(StorageId(2)));
}

#[test]
fn the_three_editors_differ() {
    let site = MemorySite::demo();
    let editors: Vec<Permissions> = (3..=5).map(|user| permissions(&site, user)).collect();
    assert_ne!(editors[0], editors[1]);
    assert_ne!(editors[1], editors[2]);
    assert_ne!(editors[0], editors[2]);
}

#[test]
fn deleted_elements_are_hidden_from_editors() {
    let site = MemorySite::demo();
    let clara = permissions(&site, 5);
    let admin = permissions(&site, 1);
    let deleted = block_on(site.elements(PageId(26)))
        .unwrap()
        .into_iter()
        .find(|element| element.deleted)
        .unwrap();
    assert!(!block_on(clara.may_show_element(&deleted, &site)).unwrap());
    assert!(block_on(admin.may_show_element(&deleted, &site)).unwrap());
}

#[test]
fn an_unknown_user_or_page_is_not_found() {
    let site = MemorySite::demo();
    assert!(block_on(site.permissions(UserId(99))).is_err());
    let clara = permissions(&site, 5);
    assert!(block_on(clara.may_show_page(PageId(999), &site)).is_err());
}

#[test]
fn an_actor_is_mapped_to_the_site_user_of_the_same_name() {
    let site = MemorySite::demo();
    let for_actor = |name: &str, admin: bool| block_on(Permissions::for_actor(&site, name, admin));
    // The host's administrator flag gives everything, whatever the name.
    assert_eq!(
        for_actor("anyone", true).unwrap(),
        Permissions::administrator()
    );
    // Otherwise the site's grants for that name.
    assert_eq!(for_actor("petra", false).unwrap(), permissions(&site, 3));
    // The site's administrator flag cannot raise an actor the host does not.
    let admin = for_actor("admin", false).unwrap();
    assert!(!admin.admin);
    assert!(!admin.may_read_table(&block_on(site.table("api_clients")).unwrap()));
    // A name the site does not know reaches nothing.
    assert_eq!(for_actor("nobody", false).unwrap(), Permissions::nothing());
}
