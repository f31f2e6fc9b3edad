-- The text of SKILL.md as it was approved, so a changed skill's page can
-- show a line diff; approvals made before this keep NULL (only which
-- files changed can be shown for them).
ALTER TABLE skill_approvals ADD COLUMN skill_md TEXT;
