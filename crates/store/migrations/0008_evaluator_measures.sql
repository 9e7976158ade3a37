-- chessgraph schema, version 8: a stored evaluator's test-part measures are those of
-- `chessgraph eval` (the evaluator as the engine uses it: its static evaluation of each
-- stored position, and after its quiescence search), one definition everywhere.
-- `valid_loss` stays the tuner's fit loss on the validation part.
--
-- Earlier versions stored a τ and a loss measured at the start evaluator's quiescence
-- leaves under the same names: they are cleared rather than shown as `eval`'s figures.

ALTER TABLE evaluators ADD COLUMN test_tau_qsearch REAL;  -- Kendall tau-b after quiescence
UPDATE evaluators SET test_loss = NULL, test_tau = NULL;
