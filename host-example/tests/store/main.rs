//! One storage suite, run against every backend: a SQLite file always, and
//! PostgreSQL when `HOST_TEST_POSTGRES_URL` names a server (a role allowed
//! to create databases; each test gets a fresh database). With `CI` set
//! and no URL, the PostgreSQL tests fail instead of skipping.

mod approval_votes;
mod atomic;
mod audit_chain;
mod backends;
mod behaviours;
mod durability;
mod exposures;
mod jobs;
mod maintenance;
mod settings;
mod signin_throttle;
mod skill_approvals;

/// Every behaviour of the suite, whichever file holds it.
mod every {
    pub use crate::approval_votes::*;
    pub use crate::atomic::*;
    pub use crate::audit_chain::*;
    pub use crate::behaviours::*;
    pub use crate::exposures::*;
    pub use crate::jobs::*;
    pub use crate::maintenance::*;
    pub use crate::settings::*;
    pub use crate::signin_throttle::*;
    pub use crate::skill_approvals::*;
}

macro_rules! suite {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    let db = crate::backends::TestDb::sqlite();
                    crate::every::$name(&db.url).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    let Some(db) = crate::backends::TestDb::postgres().await else {
                        return;
                    };
                    crate::every::$name(&db.url).await;
                }
            )*
        }
    };
}

suite!(
    a_backup_opens_and_checks_like_the_original,
    a_call_whose_audit_row_fails_keeps_no_proposal,
    a_run_event_whose_audit_row_fails_is_not_stored,
    first_start_migrates_and_seeds,
    second_start_does_not_seed_twice,
    concurrent_first_starts_seed_once,
    reads_match_the_memory_site,
    a_failed_compare_and_set_changes_nothing,
    a_compare_and_set_applies_and_appends_history,
    concurrent_claims_have_one_winner,
    approvals_of_two_count_each_person_once_even_at_once,
    settings_round_trip,
    a_corrupt_setting_is_a_one_line_error,
    passwords_and_tokens,
    a_newer_schema_is_refused,
    runs_events_proposals_and_audit_round_trip,
    the_app_layer_sees_settings_proposals_and_audit_of_other_processes,
    skill_approvals_round_trip_and_approving_again_replaces,
    a_hand_edited_skill_approval_is_corrupt_not_trusted,
    run_notes_round_trip_in_order,
    exposures_are_kept_per_key_and_merged,
    a_call_reads_what_another_store_committed_a_moment_ago,
    an_exposure_is_forgotten_after_a_window_without_calls,
    exposure_settings_round_trip_and_bad_values_are_refused,
    twenty_failures_lock_a_name_in_every_process,
    an_address_guessing_many_names_is_held_back,
    a_forwarded_address_counts_only_from_a_trusted_proxy,
    the_overview_reads_on_every_backend,
    concurrent_writers_in_two_stores_keep_every_chain_valid,
    a_row_edited_by_hand_is_named,
    a_chain_recomputed_without_the_key_is_named_at_the_edit,
    a_row_removed_in_the_middle_is_named,
    two_rows_swapped_are_named,
    a_cut_tail_is_caught_by_the_heads_file,
    a_missing_or_readable_key_is_refused,
    two_workers_run_each_job_once,
    of_racing_claims_one_wins,
    a_live_lease_is_left_and_an_expired_one_taken,
    a_failing_job_is_retried_then_dead_and_can_be_revived,
);
