//! The tantivy backend: one index of the public sources, per language
//! analysed (lower-cased, stop words out, Snowball-stemmed: English or
//! German), BM25-ranked, phrases by positions, snippets highlighted.

use std::path::Path;

use site_model::PublicSource;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, QueryParser, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::snippet::SnippetGenerator;
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, StopWordFilter, TextAnalyzer,
};
use tantivy::{Index, IndexReader, ReloadPolicy, TantivyDocument, Term};
use tools_builtin::rag::{PublicHit, PublicQuery, QueryTerm, query_terms};

/// Characters of text in a snippet.
const SNIPPET_CHARS: usize = 200;
/// The writer's memory budget (tantivy's minimum is 15 MB per thread).
const WRITER_BYTES: usize = 50_000_000;

/// The analysed fields of one language.
#[derive(Clone, Copy)]
struct LanguageFields {
    title: Field,
    body: Field,
}

/// A built (or opened) index and its reader.
pub(super) struct TantivyIndex {
    index: Index,
    reader: IndexReader,
    id: Field,
    site: Field,
    language: Field,
    data: Field,
    english: LanguageFields,
    german: LanguageFields,
}

fn schema() -> Schema {
    let mut builder = Schema::builder();
    builder.add_text_field("id", STRING | STORED);
    builder.add_text_field("site", STRING);
    builder.add_text_field("language", STRING);
    builder.add_text_field("data", STORED);
    for (suffix, analyzer) in [("en", "public_en"), ("de", "public_de")] {
        let analysed = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(analyzer)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        builder.add_text_field(&format!("title_{suffix}"), analysed.clone());
        builder.add_text_field(&format!("body_{suffix}"), analysed);
    }
    builder.build()
}

/// The analyzers are not stored with the index: every open registers them.
fn register_analyzers(index: &Index) {
    for (name, language) in [
        ("public_en", Language::English),
        ("public_de", Language::German),
    ] {
        let mut builder = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter_dynamic(RemoveLongFilter::limit(40))
            .filter_dynamic(LowerCaser);
        if let Some(stop_words) = StopWordFilter::new(language) {
            builder = builder.filter_dynamic(stop_words);
        }
        let analyzer = builder.filter_dynamic(Stemmer::new(language)).build();
        index.tokenizers().register(name, analyzer);
    }
}

impl TantivyIndex {
    /// Builds an index of `sources` in `dir` (which must not hold one), or
    /// in memory.
    pub(super) fn build(dir: Option<&Path>, sources: &[PublicSource]) -> tantivy::Result<Self> {
        let index = match dir {
            Some(dir) => Index::create_in_dir(dir, schema())?,
            None => Index::create_in_ram(schema()),
        };
        register_analyzers(&index);
        let opened = TantivyIndex::over(index)?;
        let mut writer = opened
            .index
            .writer_with_num_threads::<TantivyDocument>(1, WRITER_BYTES)?;
        for source in sources {
            let mut doc = TantivyDocument::default();
            doc.add_text(opened.id, &source.id);
            doc.add_text(opened.site, &source.site);
            doc.add_text(opened.language, &source.language);
            doc.add_text(
                opened.data,
                serde_json::to_string(source).unwrap_or_default(),
            );
            let fields = opened.fields_of(&source.language);
            doc.add_text(fields.title, source.title.for_host());
            doc.add_text(fields.body, source.text.for_host());
            writer.add_document(doc)?;
        }
        writer.commit()?;
        writer.wait_merging_threads()?;
        opened.reader.reload()?;
        Ok(opened)
    }

    /// Opens the index built in `dir`.
    pub(super) fn open(dir: &Path) -> tantivy::Result<Self> {
        let index = Index::open_in_dir(dir)?;
        register_analyzers(&index);
        TantivyIndex::over(index)
    }

    fn over(index: Index) -> tantivy::Result<Self> {
        let schema = index.schema();
        let field = |name: &str| schema.get_field(name);
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        Ok(TantivyIndex {
            id: field("id")?,
            site: field("site")?,
            language: field("language")?,
            data: field("data")?,
            english: LanguageFields {
                title: field("title_en")?,
                body: field("body_en")?,
            },
            german: LanguageFields {
                title: field("title_de")?,
                body: field("body_de")?,
            },
            index,
            reader,
        })
    }

    fn fields_of(&self, language: &str) -> LanguageFields {
        match language {
            "de" => self.german,
            _ => self.english,
        }
    }

    /// How many sources the index holds.
    pub(super) fn len(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// The sources matching `query`, best first.
    pub(super) fn search(&self, query: &PublicQuery) -> tantivy::Result<Vec<PublicHit>> {
        // Rebuilt from the query's words: a phrase quoted, a word bare (no
        // character of it is syntax), so the user's text is never read as
        // field names or operators.
        let text = query_terms(&query.text)
            .iter()
            .map(|term| match term {
                QueryTerm::Word(word) => word.clone(),
                QueryTerm::Phrase(words) => format!("\"{}\"", words.join(" ")),
            })
            .collect::<Vec<_>>()
            .join(" ");
        let mut parser = QueryParser::for_index(
            &self.index,
            vec![
                self.english.title,
                self.english.body,
                self.german.title,
                self.german.body,
            ],
        );
        parser.set_field_boost(self.english.title, 2.0);
        parser.set_field_boost(self.german.title, 2.0);
        let (matching, _ignored) = parser.parse_query_lenient(&text);
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, matching.box_clone())];
        for (field, value) in [(self.site, &query.site), (self.language, &query.language)] {
            if let Some(value) = value {
                clauses.push((
                    Occur::Must,
                    Box::new(TermQuery::new(
                        Term::from_field_text(field, value),
                        IndexRecordOption::Basic,
                    )),
                ));
            }
        }
        let filtered = BooleanQuery::new(clauses);
        let searcher = self.reader.searcher();
        let top = searcher.search(
            &filtered,
            &TopDocs::with_limit(query.limit.max(1)).order_by_score(),
        )?;
        let mut snippets = Vec::new();
        for fields in [self.english, self.german] {
            let mut generator = SnippetGenerator::create(&searcher, &*matching, fields.body)?;
            generator.set_max_num_chars(SNIPPET_CHARS);
            snippets.push(generator);
        }
        let mut hits = Vec::new();
        for (score, address) in top.into_iter().take(query.limit) {
            let doc: TantivyDocument = searcher.doc(address)?;
            let Some(source) = self.source_of(&doc) else {
                continue;
            };
            let generator = &snippets[usize::from(source.language == "de")];
            let snippet = generator.snippet(source.text.for_host());
            let excerpt = if snippet.is_empty() {
                source.text.for_host().chars().take(SNIPPET_CHARS).collect()
            } else {
                highlighted(snippet.fragment(), snippet.highlighted())
            };
            hits.push(PublicHit {
                id: source.id,
                title: source.title,
                url: source.url,
                site: source.site,
                language: source.language,
                score,
                excerpt: tool_core::Authored::new(excerpt),
            });
        }
        Ok(hits)
    }

    /// The source `id`, when the index holds it.
    pub(super) fn fetch(&self, id: &str) -> tantivy::Result<Option<PublicSource>> {
        let searcher = self.reader.searcher();
        let query = TermQuery::new(Term::from_field_text(self.id, id), IndexRecordOption::Basic);
        let top = searcher.search(&query, &TopDocs::with_limit(1).order_by_score())?;
        match top.first() {
            Some((_, address)) => Ok(self.source_of(&searcher.doc(*address)?)),
            None => Ok(None),
        }
    }

    fn source_of(&self, doc: &TantivyDocument) -> Option<PublicSource> {
        let data = doc.get_first(self.data)?.as_str()?;
        serde_json::from_str(data).ok()
    }
}

/// `fragment` with each highlighted range between `**`.
fn highlighted(fragment: &str, ranges: &[std::ops::Range<usize>]) -> String {
    let mut out = String::with_capacity(fragment.len() + 4 * ranges.len());
    let mut from = 0;
    for range in ranges {
        if range.start < from || range.end > fragment.len() {
            continue;
        }
        out.push_str(&fragment[from..range.start]);
        out.push_str("**");
        out.push_str(&fragment[range.clone()]);
        out.push_str("**");
        from = range.end;
    }
    out.push_str(&fragment[from..]);
    out
}
