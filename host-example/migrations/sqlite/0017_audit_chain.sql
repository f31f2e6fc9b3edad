-- The audit trail proves itself (store/audit_chain.rs): each row written
-- from now on names its chain (one per opened store: a process), its
-- position in it (from 1), and the HMAC-SHA256 (hex) of its content and of
-- the previous row's hash, keyed by a file outside the database. Rows
-- from before this migration have none of the three.
ALTER TABLE audit ADD COLUMN chain TEXT;
ALTER TABLE audit ADD COLUMN chain_pos INTEGER;
ALTER TABLE audit ADD COLUMN hash TEXT;
CREATE UNIQUE INDEX audit_chain_pos ON audit (chain, chain_pos);
