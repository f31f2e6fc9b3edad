//! What the public may read of the demo site: `public_sources`, against the
//! demo's hidden and deleted pages and elements.

use std::collections::BTreeSet;

use futures_executor::block_on;
use site_model::{
    ChangeSet, Changes, Fields, MemorySite, Operation, PageId, PublicSource, SourceKind, Target,
    plain_text, public_sources,
};

fn demo_sources() -> Vec<PublicSource> {
    block_on(public_sources(&MemorySite::demo())).unwrap()
}

fn ids(sources: &[PublicSource]) -> BTreeSet<&str> {
    sources.iter().map(|source| source.id.as_str()).collect()
}

fn all_text(sources: &[PublicSource]) -> String {
    sources
        .iter()
        .map(|source| {
            format!(
                "{} {} {}",
                source.title.for_host(),
                source.url,
                source.text.for_host()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
        .to_lowercase()
}

#[test]
fn hidden_and_deleted_pages_and_whatever_is_under_them_are_not_public() {
    let sources = demo_sources();
    let ids = ids(&sources);
    // 8 "Ridge 27.5" hidden, 11 "Cargo E" deleted, 18 "Archive" hidden,
    // 27 "History" deleted; folders (14, 30) and the link (29) show nothing.
    for gone in [
        "page:8", "page:11", "page:18", "page:27", "page:14", "page:29", "page:30",
    ] {
        assert!(!ids.contains(gone), "{gone} is not public");
    }
    for shown in [
        "page:1", "page:21", "page:5", "page:31", "page:34", "page:119",
    ] {
        assert!(ids.contains(shown), "{shown} is public");
    }
}

#[test]
fn words_only_in_hidden_or_deleted_content_are_nowhere_in_public_text() {
    let text = all_text(&demo_sources());
    // The deleted page about the steel-framed cargo bike, the hidden note
    // about the new workshop, the deleted summer intern ad, the hidden
    // analytics draft, the deleted history page.
    for word in [
        "cargo",
        "shimano",
        "4,990",
        "moved",
        "march",
        "intern",
        "2022",
        "analytics",
        "garage to a factory",
    ] {
        assert!(!text.contains(word), "`{word}` is public text");
    }
    // Their public neighbours stay.
    for word in [
        "steel frame",
        "workshop",
        "warranty",
        "five years on every frame",
    ] {
        assert!(text.contains(word), "`{word}` is missing");
    }
}

#[test]
fn pages_carry_their_site_language_address_and_public_elements() {
    let sources = demo_sources();
    let warranty = sources.iter().find(|s| s.id == "page:21").unwrap();
    assert_eq!(warranty.kind, SourceKind::Page);
    assert_eq!(warranty.site, "main");
    assert_eq!(warranty.language, "en");
    assert_eq!(
        warranty.url,
        "https://www.northwind-bikes.example/service/warranty/"
    );
    assert!(warranty.text.for_host().contains("two years on parts"));
    assert!(!warranty.text.for_host().contains('<'));

    let service_de = sources.iter().find(|s| s.id == "page:119").unwrap();
    assert_eq!(service_de.language, "de");
    assert_eq!(
        service_de.url,
        "https://www.northwind-bikes.example/de/service/"
    );
    assert!(
        service_de
            .text
            .for_host()
            .contains("Wir kümmern uns um Ihr Rad.")
    );
    assert!(
        !service_de
            .text
            .for_host()
            .contains("We look after your bike")
    );

    let offers = sources.iter().find(|s| s.id == "page:34").unwrap();
    assert_eq!(offers.site, "outlet");
    assert_eq!(offers.url, "https://outlet.northwind-bikes.example/offers/");

    let privacy = sources.iter().find(|s| s.id == "page:32").unwrap();
    assert!(privacy.text.for_host().contains("session cookie"));
    assert!(!privacy.text.for_host().contains("To be reviewed by legal"));
}

#[test]
fn files_are_public_only_through_public_content_and_never_when_missing() {
    let sources = demo_sources();
    let files: BTreeSet<_> = sources
        .iter()
        .filter(|s| s.kind == SourceKind::File)
        .map(|s| s.id.as_str())
        .collect();
    // 1: the home page's hero; 6: used only on the deleted Cargo E page;
    // 15: missing; 11: used nowhere.
    assert!(files.contains("file:1"));
    assert!(!files.contains("file:6"));
    assert!(!files.contains("file:15"));
    assert!(!files.contains("file:11"));
    let hero = sources.iter().find(|s| s.id == "file:1").unwrap();
    assert!(hero.text.for_host().contains("Weser cycle path"));
    assert!(
        hero.url
            .ends_with("fileadmin/images/home/hero-ride-further.jpg")
    );
}

#[test]
fn hiding_a_page_through_a_change_takes_it_and_its_subtree_out() {
    let site = MemorySite::demo();
    block_on(async {
        let before = public_sources(&site).await.unwrap();
        assert!(ids(&before).contains("page:21"));
        let hide = |hidden: bool| -> Fields { [("hidden".to_owned(), hidden.into())].into() };
        let change = ChangeSet {
            operations: vec![Operation::Update {
                target: Target::Page(PageId(19)),
                expected: hide(false),
                new: hide(true),
            }],
            history: Vec::new(),
        };
        site.apply(change).await.unwrap();
        let after = public_sources(&site).await.unwrap();
        for gone in ["page:19", "page:20", "page:21", "page:119"] {
            assert!(!ids(&after).contains(gone), "{gone} is still public");
        }
        assert!(ids(&after).contains("page:2"));
    });
}

#[test]
fn plain_text_drops_tags_and_keeps_words_apart() {
    assert_eq!(
        plain_text("<ul><li>Five-year frame warranty</li><li>Repairs</li></ul>"),
        "Five-year frame warranty Repairs"
    );
    assert_eq!(plain_text("Tom &amp; Jerry&nbsp;ride"), "Tom & Jerry ride");
}
