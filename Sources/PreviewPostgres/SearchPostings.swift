/// PostgreSQL's search index in the creation order (``TextSearch/readInOrder``): a posting per
/// distinct trigram of each latest version's search key, and one for its owner, keyed by
/// `(gram, created_at, id)` so that each gram's postings are in the listings' own order and a
/// walk can seek in them. A trigram is its three code points in one number (21 bits each, as
/// ``TextSearch/trigrams(_:limit:)`` numbers a query's); an owner is a negative number from
/// PostgreSQL's 64-bit text hash. Triggers keep the postings in the transaction that inserts,
/// relabels, replaces or deletes a version.
///
/// They cost space: about 130 bytes a posting with its index, some 20 postings for a short title
/// and file name (2.6 GB at 10⁶ documents, six times the documents' table), more for descriptions.
enum SearchPostings {
    /// The functions, the table filled from the latest versions, and the triggers.
    static let statements = [
        """
        CREATE FUNCTION search_owner_gram(owner text) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT hashtextextended(owner, 0) | (1::bigint << 63) $$
        """,
        """
        CREATE FUNCTION search_grams(key text, owner text) RETURNS bigint[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT array_agg(DISTINCT gram) FROM (
            SELECT (ascii(c[i])::bigint << 42) | (ascii(c[i + 1])::bigint << 21) | ascii(c[i + 2]) AS gram
            FROM (SELECT string_to_array(key, NULL) AS c) AS characters, generate_series(1, cardinality(c) - 2) AS i
            UNION ALL SELECT search_owner_gram(owner)) AS grams $$
        """,
        """
        CREATE TABLE search_postings (gram bigint NOT NULL, created_at timestamptz NOT NULL, id text NOT NULL,
                                      PRIMARY KEY (gram, created_at, id))
        """,
        """
        INSERT INTO search_postings SELECT gram, created_at, id FROM documents, unnest(search_grams(search_key, owner)) AS gram
        WHERE latest
        """,
        """
        CREATE FUNCTION search_postings_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF TG_OP <> 'INSERT' AND OLD.latest THEN
            DELETE FROM search_postings WHERE gram = ANY(search_grams(OLD.search_key, OLD.owner))
                AND created_at = OLD.created_at AND id = OLD.id;
        END IF;
        IF TG_OP <> 'DELETE' AND NEW.latest THEN
            INSERT INTO search_postings SELECT gram, NEW.created_at, NEW.id FROM unnest(search_grams(NEW.search_key, NEW.owner)) AS gram;
        END IF;
        RETURN NULL;
        END $$
        """,
        "CREATE TRIGGER search_postings_inserted AFTER INSERT ON documents FOR EACH ROW WHEN (NEW.latest) EXECUTE FUNCTION search_postings_changed()",
        """
        CREATE TRIGGER search_postings_changed AFTER UPDATE OF latest, search_key, owner, created_at, id ON documents FOR EACH ROW
        WHEN ((OLD.latest OR NEW.latest) AND (OLD.latest, OLD.search_key, OLD.owner, OLD.created_at, OLD.id)
              IS DISTINCT FROM (NEW.latest, NEW.search_key, NEW.owner, NEW.created_at, NEW.id))
        EXECUTE FUNCTION search_postings_changed()
        """,
        "CREATE TRIGGER search_postings_deleted AFTER DELETE ON documents FOR EACH ROW WHEN (OLD.latest) EXECUTE FUNCTION search_postings_changed()"
    ]
}
