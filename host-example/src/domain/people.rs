//! The host's people: the rule that a host always has an administrator.

/// Whether `name` may stop being an administrator while `others` other
/// administrators remain: never the last one, or nobody could administer
/// the host again. The store asks it inside the transaction that writes
/// the change, so two administrators unmaking each other at once cannot
/// both pass it.
pub fn keeps_an_administrator(name: &str, others: i64) -> Result<(), String> {
    if others > 0 {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is the last administrator: make another one first"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::keeps_an_administrator;

    #[test]
    fn the_last_administrator_stays_one() {
        assert!(keeps_an_administrator("ann", 1).is_ok());
        let refused = keeps_an_administrator("ann", 0).unwrap_err();
        assert_eq!(
            refused,
            "`ann` is the last administrator: make another one first"
        );
    }
}
