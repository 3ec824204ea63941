-- Reserved: this step is filled in by the change that needs it; until then it does nothing.
SELECT 1;
