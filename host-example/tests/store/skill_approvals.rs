//! Approved skills and run notes, on every backend.

use host_example::app::skills::approval::Distrust;
use host_example::app::skills::digest::{FileChange, FileDigest, SkillDigest};
use host_example::store::{RunNote, SkillApproval, Store, StoreError};
use tool_core::RunId;
use tool_core::gates::Grant;

fn approval(name: &str, skill_md: &str, by: &str) -> SkillApproval {
    SkillApproval {
        name: name.to_owned(),
        folder: format!("/srv/skills/{name}").into(),
        digest: SkillDigest::from_files(vec![
            FileDigest {
                path: "scripts/run.sh".to_owned(),
                sha256: "b".repeat(64),
            },
            FileDigest {
                path: "SKILL.md".to_owned(),
                sha256: skill_md.repeat(64),
            },
        ]),
        approved_by: by.to_owned(),
        approved_at: 0,
        skill_md: Some(format!("---\nname: {name}\n---\nText {skill_md}\n")),
    }
}

pub async fn skill_approvals_round_trip_and_approving_again_replaces(url: &str) {
    let store = Store::open(url).await.unwrap();
    assert!(
        store
            .decisions()
            .skill_approvals()
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store.decisions().skill_approval("review").await.unwrap(),
        None
    );

    let first = [
        approval("review", "a", "admin"),
        approval("deploy", "c", "admin"),
    ];
    store
        .decisions()
        .save_skill_approvals(&first)
        .await
        .unwrap();
    let listed = store.decisions().skill_approvals().await.unwrap();
    let names: Vec<&str> = listed.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["deploy", "review"]);
    let review = store
        .decisions()
        .skill_approval("review")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(review.digest, first[0].digest);
    assert_eq!(review.approved_by, "admin");
    assert!(review.approved_at > 0);
    assert_eq!(review.folder, first[0].folder);

    // Approving again replaces the record, digest and approver.
    store
        .decisions()
        .save_skill_approvals(&[approval("review", "d", "ops")])
        .await
        .unwrap();
    let review = store
        .decisions()
        .skill_approval("review")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(review.approved_by, "ops");
    assert_eq!(
        review.skill_md.as_deref(),
        Some("---\nname: review\n---\nText d\n"),
        "the approved text is kept, and replaced with the approval"
    );
    assert_eq!(
        review.digest.changes_since(&first[0].digest),
        [FileChange::Changed("SKILL.md".to_owned())]
    );
    assert_eq!(store.decisions().skill_approvals().await.unwrap().len(), 2);
}

pub async fn a_hand_edited_skill_approval_is_corrupt_not_trusted(url: &str) {
    let store = Store::open(url).await.unwrap();
    store
        .decisions()
        .save_skill_approvals(&[approval("review", "a", "admin")])
        .await
        .unwrap();
    // Someone with database access swaps the digest to match their edit
    // but leaves the per-file hashes: the row proves nothing.
    sqlx::query("UPDATE skill_approvals SET digest = $1 WHERE name = 'review'")
        .bind("0".repeat(64))
        .execute(store.pool())
        .await
        .unwrap();
    let error = store
        .decisions()
        .skill_approval("review")
        .await
        .unwrap_err();
    assert!(matches!(error, StoreError::Corrupt { .. }), "{error}");
    assert!(
        error.to_string().contains("approve the skill again"),
        "{error}"
    );
    assert!(!error.to_string().contains('\n'), "{error}");
}

pub async fn run_notes_round_trip_in_order(url: &str) {
    let store = Store::open(url).await.unwrap();
    let run = RunId("run-notes".to_owned());
    store
        .run_log()
        .create_run(
            &run,
            "admin",
            &Grant::empty(),
            host_example::store::Lease {
                owner: "test",
                until_ms: i64::MAX,
            },
        )
        .await
        .unwrap();
    assert!(store.run_log().run_notes(&run).await.unwrap().is_empty());
    let notes = [
        RunNote::SkillRefused {
            skill: "review".to_owned(),
            reason: Distrust::Changed {
                changes: vec![
                    FileChange::Changed("SKILL.md".to_owned()),
                    FileChange::Removed("notes.md".to_owned()),
                ],
                approved_by: "admin".to_owned(),
                approved_at: 1_700_000_000,
            },
        },
        RunNote::SkillRefused {
            skill: "deploy".to_owned(),
            reason: Distrust::NotApproved,
        },
        RunNote::SkillUnapprovedUsed {
            skill: "other".to_owned(),
        },
    ];
    for note in &notes {
        store.run_log().record_run_note(&run, note).await.unwrap();
    }
    assert_eq!(store.run_log().run_notes(&run).await.unwrap(), notes);
    assert!(
        notes[0]
            .to_string()
            .contains("`SKILL.md` changed, `notes.md` removed since `admin` approved it"),
        "{}",
        notes[0]
    );
}
