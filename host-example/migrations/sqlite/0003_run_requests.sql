-- What a run was asked (prompt, skills by name, round cap), so an approval
-- in another process resumes it with the same inputs; and the conversation
-- of a finished run, so a failed one can be continued.
ALTER TABLE runs ADD COLUMN request TEXT;
ALTER TABLE runs ADD COLUMN conversation TEXT;
