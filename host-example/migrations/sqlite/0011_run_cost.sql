-- What each run is estimated to have cost, at the prices of the model
-- configuration it ran with (NULL: no prices configured), so budgets of
-- estimated cost per day and month (setting `budgets`) can sum it.
ALTER TABLE runs ADD COLUMN estimated_cost REAL;
