-- Each webhook's data class (issue 42), like a run's trust zone: a
-- proposal's values above it are left out of its payloads (ids and links
-- stay). Existing webhooks get `internal`, the class the host's own
-- writing tools declare, so what they received before they still do;
-- values a run brought in from personal or confidential reads do not.
ALTER TABLE webhooks ADD COLUMN data_class TEXT NOT NULL DEFAULT 'internal';
