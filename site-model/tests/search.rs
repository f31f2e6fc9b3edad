//! Search is a literal, case-insensitive substring match: `%` and `_` are
//! characters, not wildcards.

use futures_executor::block_on;
use site_model::{FileQuery, Files, MemorySite, Records, StorageId};

fn titles(records: &[site_model::Record], field: &str) -> Vec<String> {
    records
        .iter()
        .map(|record| record.values.for_host()[field].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn percent_and_underscore_are_literal_in_record_search() {
    let site = MemorySite::demo();
    block_on(async {
        let percent = site.search_records("news", "20%", 10).await.unwrap();
        assert_eq!(titles(&percent, "title"), ["Save 20% on all helmets"]);
        // As a LIKE pattern `%` would match every record.
        let only_percent = site.search_records("news", "%", 10).await.unwrap();
        assert_eq!(only_percent.len(), 1);
        // As a LIKE pattern `2_%` would match "20%".
        assert!(
            site.search_records("news", "2_%", 10)
                .await
                .unwrap()
                .is_empty()
        );

        let underscore = site.search_records("products", "p_x", 10).await.unwrap();
        assert_eq!(titles(&underscore, "name"), ["Pannier XL"]);
        assert!(
            site.search_records("products", "nwb_", 10)
                .await
                .unwrap()
                .is_empty()
        );
    });
}

#[test]
fn search_ignores_case_and_respects_the_limit() {
    let site = MemorySite::demo();
    block_on(async {
        assert_eq!(
            site.search_records("products", "BIKE", 100)
                .await
                .unwrap()
                .len(),
            4
        );
        assert_eq!(
            site.search_records("products", "", 3).await.unwrap().len(),
            3
        );
    });
}

#[test]
fn file_search_is_literal_too() {
    let site = MemorySite::demo();
    block_on(async {
        let query = |text: &str| FileQuery {
            storage: None,
            text: text.into(),
            limit: 50,
        };
        let found = site.search_files(&query("100%")).await.unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name, "size_chart_100%.pdf");
        assert_eq!(site.search_files(&query("_")).await.unwrap().len(), 1);
        let media = FileQuery {
            storage: Some(StorageId(2)),
            ..query("")
        };
        assert_eq!(site.search_files(&media).await.unwrap().len(), 7);
    });
}

#[test]
fn folders_list_subfolders_and_files() {
    let site = MemorySite::demo();
    block_on(async {
        let top = site.list_folder(StorageId(1), "").await.unwrap();
        let folders: Vec<_> = top
            .folders
            .iter()
            .map(|folder| folder.path.for_host().as_str())
            .collect();
        assert_eq!(folders, ["documents", "images"]);
        assert!(top.files.is_empty());
        let products = site
            .list_folder(StorageId(1), "images/products")
            .await
            .unwrap();
        assert_eq!(products.files.len(), 5);
        assert!(site.list_folder(StorageId(1), "nope").await.is_err());
    });
}

#[test]
fn equality_filters_select_records() {
    let site = MemorySite::demo();
    block_on(async {
        let filter = [("category".to_owned(), serde_json::json!("accessories"))].into();
        assert_eq!(
            site.find_records("products", &filter).await.unwrap().len(),
            4
        );
        let unknown = [("colour".to_owned(), serde_json::json!("red"))].into();
        assert!(matches!(
            site.find_records("products", &unknown).await,
            Err(site_model::SiteError::Invalid { .. })
        ));
    });
}
