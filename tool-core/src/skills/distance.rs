//! How far apart two names are, for the "did you mean" of a near miss.

/// Levenshtein distance; `None` for names too long to be worth comparing,
/// which bounds the cost of a hostile token.
pub(crate) fn distance(a: &str, b: &str) -> Option<usize> {
    const LIMIT: usize = 128;
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len() > LIMIT || b.len() > LIMIT {
        return None;
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != cb);
            let insert = current[j] + 1;
            let delete = previous[j + 1] + 1;
            current.push(substitute.min(insert).min(delete));
        }
        previous = current;
    }
    previous.last().copied()
}
