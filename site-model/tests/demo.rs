//! The demo site loads and holds what its docs promise.

use std::collections::BTreeSet;

use futures_executor::block_on;
use site_model::{
    Accounts, Configuration, Files, LanguageId, LogQuery, Logs, MemorySite, Pages, Records,
    SiteData, SourceRoot, demo,
};

#[test]
fn demo_has_the_promised_counts() {
    let site = MemorySite::demo();
    block_on(async {
        let pages = site.pages().await.unwrap();
        let default_language = pages.iter().filter(|page| page.language == LanguageId(0));
        assert_eq!(default_language.clone().count(), 34);
        assert!(default_language.clone().filter(|page| page.hidden).count() >= 2);
        assert!(default_language.filter(|page| page.deleted).count() >= 2);
        let translations: Vec<_> = pages
            .iter()
            .filter(|page| page.translation_of.is_some())
            .collect();
        assert_eq!(translations.len(), 8);
        assert!(
            translations
                .iter()
                .all(|page| page.language == LanguageId(1))
        );

        let data = site.data();
        assert_eq!(data.elements.len(), 100);
        let columns: BTreeSet<_> = data.elements.iter().map(|element| element.column).collect();
        assert_eq!(columns.len(), 3);
        assert!(
            data.elements
                .iter()
                .any(|element| element.translation_of.is_some())
        );

        let tables = site.tables().await.unwrap();
        assert_eq!(tables.len(), 3);
        let api_clients = site.table("api_clients").await.unwrap();
        assert!(api_clients.sensitive);
        assert_eq!(
            api_clients.credential_fields().collect::<Vec<_>>(),
            ["client_secret"]
        );
        for table in &tables {
            assert!(
                !site.history(&table.name, 1).await.unwrap().is_empty(),
                "{}",
                table.name
            );
        }

        assert_eq!(site.storages().await.unwrap().len(), 2);
        assert_eq!(data.files.len(), 20);
        assert_eq!(site.missing_files().await.unwrap().len(), 2);
        assert!(data.references.len() >= 10);

        let users = site.users().await.unwrap();
        assert_eq!(users.len(), 5);
        assert_eq!(users.iter().filter(|user| user.admin).count(), 2);
        assert_eq!(site.groups().await.unwrap().len(), 2);
        assert_eq!(site.logs(&LogQuery::newest(1000)).await.unwrap().len(), 200);
        assert_eq!(site.sites().await.unwrap().len(), 2);
    });
}

#[test]
fn the_page_tree_is_four_levels_deep_under_one_root() {
    let site = MemorySite::demo();
    block_on(async {
        let roots = site.children(None).await.unwrap();
        assert_eq!(
            roots
                .iter()
                .map(|page| page.title.for_host().as_str())
                .collect::<Vec<_>>(),
            ["Northwind Bikes", "Northwind Outlet"]
        );
        let depths = futures_depths(&site).await;
        assert_eq!(depths.into_iter().max(), Some(4));
    });
}

async fn futures_depths(site: &MemorySite) -> Vec<usize> {
    let mut depths = Vec::new();
    for page in site.pages().await.unwrap() {
        depths.push(site.rootline(page.id).await.unwrap().len());
    }
    depths
}

#[test]
fn every_secret_is_in_the_demo_and_the_data_round_trips() {
    let data = SiteData::from_json(demo::DATA).unwrap();
    let again = serde_json::to_string(&data).unwrap();
    assert_eq!(SiteData::from_json(&again).unwrap(), data);

    let site = MemorySite::demo();
    let root = site.source_root().unwrap().to_owned();
    let sources: String = [".env", "config/private.pem", "config/app.yaml"]
        .iter()
        .map(|path| std::fs::read_to_string(root.join(path)).unwrap())
        .collect();
    assert!(sources.contains("-----BEGIN PRIVATE KEY-----"));
    for secret in demo::SECRETS {
        assert!(
            demo::DATA.contains(secret) || sources.contains(secret),
            "{secret} is in neither the data nor the source tree"
        );
    }
}

#[test]
fn logs_come_newest_first_and_filter_by_level() {
    use site_model::LogLevel;
    let site = MemorySite::demo();
    block_on(async {
        let all = site.logs(&LogQuery::newest(50)).await.unwrap();
        assert_eq!(all.len(), 50);
        assert!(all.windows(2).all(|pair| pair[0].at >= pair[1].at));
        let query = LogQuery {
            min_level: Some(LogLevel::Warning),
            component: None,
            limit: 500,
        };
        let severe = site.logs(&query).await.unwrap();
        assert!(!severe.is_empty());
        assert!(
            severe
                .iter()
                .all(|entry| matches!(entry.level, LogLevel::Error | LogLevel::Warning))
        );
    });
}

#[test]
fn translations_and_rootlines_follow_the_tree() {
    use site_model::PageId;
    let site = MemorySite::demo();
    block_on(async {
        let german = site.translations(PageId(2)).await.unwrap();
        assert_eq!(german.len(), 1);
        assert_eq!(german[0].title.for_host(), "Produkte");
        let line = site.rootline(german[0].id).await.unwrap();
        let ids: Vec<u64> = line.iter().map(|page| page.id.0).collect();
        assert_eq!(ids, [102, 1]);
        let deep: Vec<u64> = site
            .rootline(PageId(7))
            .await
            .unwrap()
            .iter()
            .map(|page| page.id.0)
            .collect();
        assert_eq!(deep, [7, 6, 2, 1]);
        assert!(matches!(
            site.page(PageId(999)).await,
            Err(site_model::SiteError::NotFound { .. })
        ));
        let elements = site.elements(PageId(1)).await.unwrap();
        assert!(
            elements
                .windows(2)
                .all(|pair| (pair[0].column, pair[0].sorting) <= (pair[1].column, pair[1].sorting))
        );
    });
}
