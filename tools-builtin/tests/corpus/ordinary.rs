//! Values a tool shows every day that hold nothing secret: commit hashes,
//! UUIDs, version strings, file paths, base64 images, long numbers,
//! words. Generated from a fixed seed, so every run sees the same ones.

use super::Place;

/// The places of an ordinary value: a URL holds it in its path.
pub const PLACES: [Place; 5] = [
    Place::Assignment,
    Place::Json,
    Place::Yaml,
    Place::UrlPath,
    Place::LogLine,
];

/// Values of each kind generated.
pub const PER_KIND: usize = 40;

/// One kind of ordinary value, and the word its names are made of (no
/// secret keyword near it).
pub struct Ordinary {
    pub kind: &'static str,
    pub word: &'static str,
    pub values: Vec<String>,
}

/// A small xorshift generator: deterministic, no dependency.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn from(&mut self, alphabet: &[u8], len: usize) -> String {
        (0..len)
            .map(|_| alphabet[self.below(alphabet.len())] as char)
            .collect()
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

const HEX: &[u8] = b"0123456789abcdef";
const DIGITS: &[u8] = b"0123456789";
const WORDS: [&str; 24] = [
    "release",
    "migration",
    "customer",
    "invoice",
    "gallery",
    "newsletter",
    "shipping",
    "warehouse",
    "catalogue",
    "checkout",
    "reporting",
    "scheduler",
    "thumbnail",
    "translation",
    "navigation",
    "analytics",
    "inventory",
    "bookmark",
    "calendar",
    "dashboard",
    "feedback",
    "marketing",
    "onboarding",
    "settlement",
];

fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Every kind, [`PER_KIND`] values each.
pub fn corpus() -> Vec<Ordinary> {
    let mut draw = Draw(0x9e37_79b9_7f4a_7c15);
    let mut kind = |kind, word, make: &mut dyn FnMut(&mut Draw, usize) -> String| Ordinary {
        kind,
        word,
        values: (0..PER_KIND).map(|i| make(&mut draw, i)).collect(),
    };
    vec![
        kind("commit hash", "commit", &mut |d, _| d.from(HEX, 40)),
        kind("short commit hash", "revision", &mut |d, _| d.from(HEX, 12)),
        kind("sha256 digest", "checksum", &mut |d, _| {
            format!("sha256:{}", d.from(HEX, 64))
        }),
        kind("uuid", "request_id", &mut |d, _| {
            let h = d.from(HEX, 32);
            format!(
                "{}-{}-4{}-a{}-{}",
                &h[..8],
                &h[8..12],
                &h[13..16],
                &h[17..20],
                &h[20..]
            )
        }),
        kind("version", "version", &mut |d, i| match i % 4 {
            0 => format!("{}.{}.{}", d.below(5), d.below(40), d.below(20)),
            1 => format!(
                "v{}.{}.{}-rc.{}",
                d.below(5),
                d.below(40),
                d.below(20),
                d.below(9)
            ),
            2 => format!(
                "{}.{}.{}+build.{}",
                d.below(5),
                d.below(40),
                d.below(20),
                d.below(999)
            ),
            _ => format!("2026.{}.{}", 1 + d.below(12), 1 + d.below(28)),
        }),
        kind("file path", "path", &mut |d, i| {
            let (a, b) = (WORDS[d.below(WORDS.len())], WORDS[d.below(WORDS.len())]);
            match i % 3 {
                0 => format!("/var/www/site/{a}/{b}_{}.php", d.below(100)),
                1 => format!("src/{a}/{b}/Controller{}.ts", d.below(10)),
                _ => format!(
                    "fileadmin/images/{a}-{b}-{}x{}.jpg",
                    100 * d.below(20),
                    100 * d.below(20)
                ),
            }
        }),
        kind("base64 image", "image", &mut |d, i| {
            let (mime, header): (&str, &[u8]) = match i % 3 {
                0 => ("png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
                1 => ("jpeg", b"\xff\xd8\xff\xe0\0\x10JFIF\0"),
                _ => ("gif", b"GIF89a"),
            };
            let mut bytes = header.to_vec();
            let len = 48 + d.below(200);
            bytes.extend(d.bytes(len));
            format!("data:image/{mime};base64,{}", base64(&bytes))
        }),
        kind("long number", "order_number", &mut |d, _| {
            let len = 12 + d.below(20);
            format!("{}{}", 1 + d.below(9), d.from(DIGITS, len))
        }),
        kind("words", "title", &mut |d, _| {
            let count = 2 + d.below(5);
            (0..count)
                .map(|_| WORDS[d.below(WORDS.len())])
                .collect::<Vec<_>>()
                .join(" ")
        }),
        kind("identifier", "handler", &mut |d, _| {
            let count = 3 + d.below(4);
            let mut name = String::from(WORDS[d.below(WORDS.len())]);
            for _ in 1..count {
                let word = WORDS[d.below(WORDS.len())];
                name.push_str(&word[..1].to_uppercase());
                name.push_str(&word[1..]);
            }
            name
        }),
    ]
}
