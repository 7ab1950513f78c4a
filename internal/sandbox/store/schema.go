package store

// migrationDisputesWebhooks is the schema of the disputes, attachments and webhooks of
// the service room and the deliveries of the outbox. Dispute docs hold the dispute as the API
// shows it plus its history; the columns serve lookups and paging.
const migrationDisputesWebhooks = `
	CREATE TABLE disputes (
		seq           INTEGER PRIMARY KEY AUTOINCREMENT,
		id            TEXT NOT NULL UNIQUE,
		merchant_code TEXT NOT NULL,
		payment_id    TEXT NOT NULL,
		status        TEXT NOT NULL,
		created_at    INTEGER NOT NULL,
		doc           BLOB NOT NULL
	);
	CREATE INDEX disputes_by_merchant ON disputes (merchant_code, created_at DESC, seq DESC);
	CREATE INDEX disputes_by_payment ON disputes (payment_id, status);
	CREATE TABLE dispute_attachments (
		id            TEXT PRIMARY KEY,
		merchant_code TEXT NOT NULL,
		content_type  TEXT NOT NULL,
		size          INTEGER NOT NULL,
		sha256        TEXT NOT NULL,
		data          BLOB NOT NULL,
		created_at    INTEGER NOT NULL
	);
	CREATE TABLE webhooks (
		seq           INTEGER PRIMARY KEY AUTOINCREMENT,
		id            TEXT NOT NULL UNIQUE,
		kind          TEXT NOT NULL,
		merchant_code TEXT NOT NULL,
		is_test       INTEGER NOT NULL,
		url           TEXT NOT NULL,
		header_title  TEXT,
		header_value  TEXT,
		created_at    INTEGER NOT NULL,
		UNIQUE (kind, merchant_code, is_test, url)
	);
	CREATE TABLE deliveries (
		seq           INTEGER PRIMARY KEY AUTOINCREMENT,
		id            TEXT NOT NULL UNIQUE,
		kind          TEXT NOT NULL,
		webhook_id    TEXT NOT NULL,
		merchant_code TEXT NOT NULL,
		is_test       INTEGER NOT NULL,
		url           TEXT NOT NULL,
		event         TEXT NOT NULL,
		subject_id    TEXT NOT NULL,
		payload       BLOB NOT NULL,
		attempts      INTEGER NOT NULL,
		status        TEXT NOT NULL,
		http_status   INTEGER NOT NULL,
		error         TEXT NOT NULL,
		created_at    INTEGER NOT NULL,
		updated_at    INTEGER NOT NULL
	);
	CREATE INDEX deliveries_by_subject ON deliveries (subject_id);`

// migrationDeliveryAttempts keeps one row per attempt of a delivery: the
// deliveries table holds each delivery as it stands after its latest.
const migrationDeliveryAttempts = `
	CREATE TABLE delivery_attempts (
		seq         INTEGER PRIMARY KEY AUTOINCREMENT,
		delivery_id TEXT NOT NULL,
		attempt     INTEGER NOT NULL,
		at          INTEGER NOT NULL,
		http_status INTEGER NOT NULL,
		error       TEXT NOT NULL,
		latency_ns  INTEGER NOT NULL,
		resend      INTEGER NOT NULL
	);
	CREATE INDEX delivery_attempts_by_delivery ON delivery_attempts (delivery_id);`

// migrationPaymentListing makes a page of the payments list cost the same
// at any offset and whatever the number of payments:
//
//   - payments_listing covers every column the list filters and sorts on,
//     so ids are chosen from the index alone and only one page of views is
//     read from the table;
//   - list_gen counts the changes that can move a payment in or out of a
//     list, or along it (kept by triggers, so every writer of the shared
//     state bumps it, whatever process it runs in). While it stands still a
//     list's count and the positions of the pages served so far (see
//     listCache) stay true, so the next page starts with an index seek
//     instead of skipping every row before it, and the count is not redone.
//
// list_gen lives in a table of its own, which Reset does not empty: it only
// ever grows, so a remembered generation can never come back.
const migrationPaymentListing = `
	CREATE INDEX payments_listing ON payments
		(merchant_code, is_test, created_at DESC, seq DESC, status, has_captures, has_refunds, fully_refunded);
	DROP INDEX payments_by_merchant;
	CREATE TABLE list_gen (one INTEGER PRIMARY KEY CHECK (one = 1), v INTEGER NOT NULL);
	INSERT INTO list_gen (one, v) VALUES (1, 0);
	CREATE TRIGGER payments_listed AFTER INSERT ON payments
		BEGIN UPDATE list_gen SET v = v + 1; END;
	CREATE TRIGGER payments_unlisted AFTER DELETE ON payments
		BEGIN UPDATE list_gen SET v = v + 1; END;
	CREATE TRIGGER payments_relisted
		AFTER UPDATE OF status, created_at, has_captures, has_refunds, fully_refunded, merchant_code, is_test ON payments
		WHEN OLD.status IS NOT NEW.status OR OLD.created_at IS NOT NEW.created_at
			OR OLD.has_captures IS NOT NEW.has_captures OR OLD.has_refunds IS NOT NEW.has_refunds
			OR OLD.fully_refunded IS NOT NEW.fully_refunded OR OLD.merchant_code IS NOT NEW.merchant_code
			OR OLD.is_test IS NOT NEW.is_test
		BEGIN UPDATE list_gen SET v = v + 1; END;`

// The outbox. Whoever changes a payment or a dispute records the
// notifications due, in the state, in the same process and before the
// request answers: one row of deliveries per matching webhook, pending and
// due now, or failed at once when the state's URL rules refuse the URL.
// Whichever process holds the state then delivers them: every sandbox polls
// the outbox for rows due (waking early when it recorded one itself),
// claims a few with a lease (one UPDATE, so two processes sharing the file
// never send one attempt twice), posts them, and writes the outcome: the
// row delivered, failed after the last retry, or pending again with the
// time of its next attempt. A process that dies mid-attempt leaves a lease
// that lapses, and another process retries the row.
//
// `bnpl sandbox serve` announces itself in the state (serverLease) so that a
// short-lived process on the same file (the embedded default of one
// command) leaves the delivery to it; with no server, such a process
// delivers what is due before it exits, for at most closeDrain.

// migrationOutbox turns the deliveries table into an outbox and gives the
// state its settings (delivery rules, the serving process).
const migrationOutbox = `
	CREATE TABLE settings (k TEXT PRIMARY KEY, v TEXT NOT NULL);
	ALTER TABLE deliveries ADD COLUMN next_at INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE deliveries ADD COLUMN tries INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE deliveries ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
	ALTER TABLE deliveries ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE deliveries ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE delivery_attempts ADD COLUMN url TEXT NOT NULL DEFAULT '';
	ALTER TABLE delivery_attempts ADD COLUMN fault TEXT NOT NULL DEFAULT '';
	CREATE INDEX deliveries_due ON deliveries (next_at) WHERE status = 'pending';`

// migrationRequestLog: the log is kept in chunks, one row per batch the
// writer wrote (a JSON array of entries), because a row per request costs
// the sandbox a tenth of its read throughput. An entry's Seq is its
// chunk's seq times chunkSpan plus its place in the chunk. Bodies are
// stored once by hash, however many requests sent or answered them (a
// client polling a payment reads the same body over and over); last_chunk
// is the newest chunk that refers to one, so that trimming finds those no
// chunk refers to any more.
const migrationRequestLog = `
	CREATE TABLE request_log (
		seq      INTEGER PRIMARY KEY AUTOINCREMENT,
		n        INTEGER NOT NULL,
		first_at INTEGER NOT NULL,
		last_at  INTEGER NOT NULL,
		entries  BLOB NOT NULL
	);
	CREATE TABLE request_log_bodies (
		hash       TEXT PRIMARY KEY,
		last_chunk INTEGER NOT NULL,
		body       BLOB NOT NULL
	);
	CREATE INDEX request_log_bodies_by_chunk ON request_log_bodies (last_chunk);`

// migrationPaymentParts stores a payment's record as two parts, each
// once: view (the payment, as GET answers it) and session (the rest of
// the record, a JSON object). Before it, a move wrote the payment twice,
// whole in doc and again as view, and a busy payment is mostly its
// captures and refunds. doc is now computed from the parts when read
// ('{"payment":' + view + ',' + the session's fields), the bytes
// encodeRecord always wrote, so every reader of doc reads what it did; a
// row written before keeps its doc in doc_whole (session NULL) until its
// next move. rev changes with every write of the parts (the writer sets a
// new one, and a trigger any other writer's), so that a move can tell its
// cached record is still the stored one by an integer instead of the
// doc's bytes (reccache.go).
const migrationPaymentParts = `
	ALTER TABLE payments RENAME COLUMN doc TO doc_whole;
	ALTER TABLE payments ADD COLUMN session BLOB;
	ALTER TABLE payments ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE payments ADD COLUMN doc BLOB GENERATED ALWAYS AS (
		CASE WHEN session IS NULL THEN doc_whole
		ELSE CAST('{"payment":' || CAST(view AS TEXT) || ',' || CAST(substr(session, 2) AS TEXT) AS BLOB) END) VIRTUAL;
	UPDATE payments SET rev = random();
	CREATE TRIGGER payments_revised AFTER UPDATE OF doc_whole, view, session ON payments
		WHEN NEW.rev IS OLD.rev
		BEGIN UPDATE payments SET rev = random() WHERE seq = NEW.seq; END;`

// PaymentDoc is the SQL expression of a payment's record as stored, one
// JSON object: the doc column's, before migrationPaymentDocRead. A reader
// selects it from payments, `SELECT `+PaymentDoc+` FROM payments`.
const PaymentDoc = `(CASE WHEN session IS NULL THEN doc_whole
	ELSE CAST('{"payment":' || CAST(view AS TEXT) || ',' || CAST(substr(session, 2) AS TEXT) AS BLOB) END)`

// migrationPaymentDocRead drops the doc column: its readers compute the
// same bytes (PaymentDoc). A generated column whose expression calls a
// function makes SQLite keep a statement journal for every write of its
// table inside a transaction of several statements (each group of the
// writer is one), whatever the write's conflict clause: a copy of each
// page the statement changes, 16 KiB each, before it changes it. A
// checkout's INSERT touches five (the table's last leaf, the leaves of
// its three indexes, list_gen's); copying them and freeing the copies was
// 8.5% of the CPU of BenchmarkCheckoutParallel. Without the column, a
// write that cannot abort half-way (OR FAIL: moveSaveQuery,
// insertRecordQuery) keeps none.
const migrationPaymentDocRead = `ALTER TABLE payments DROP COLUMN doc;`

// migrationRequestLogTexts stores the request log's bodies in the order
// they are written, each batch's distinct ones as texts numbered from its
// chunk's texts_from: one append to one table per body. Keyed by hash
// (request_log_bodies, which chunks written before still use), each body
// went into two indexes as well, the hash's at a random place, and the
// log was a large part of what a busy sandbox wrote. A body is stored
// once per batch rather than once in all: a client polling a payment is
// still stored once a batch. Ids never come back (AUTOINCREMENT), not
// even after a reset or a trim of every text, so a reader in another
// process that read a chunk just before never finds another's body under
// its numbers.
const migrationRequestLogTexts = `
	CREATE TABLE request_log_texts (id INTEGER PRIMARY KEY AUTOINCREMENT, body BLOB NOT NULL);
	ALTER TABLE request_log ADD COLUMN texts_from INTEGER NOT NULL DEFAULT 0;`

// migrationRequestLogPacked marks the request log's texts and chunks that
// are kept compressed (packed = 1: the length and an LZ4 block). A move's
// answer is the whole payment, every capture and refund in it, so a busy
// payment's answers were the largest part of what the log wrote, trimmed
// and copied back from the WAL, and a chunk's entries repeat their names
// and most of their values: both pack to a fraction (reqlog's pack).
const migrationRequestLogPacked = `
	ALTER TABLE request_log_texts ADD COLUMN packed INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE request_log ADD COLUMN packed INTEGER NOT NULL DEFAULT 0;`
