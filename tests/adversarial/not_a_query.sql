# Model outputs that hold no statement (issue 12, item 7). SQLite runs each as an empty result, so
# without the shared rule (answer::extract_reward_sql) they earned reward 1 against any gold with no
# rows. Run by tests/unit/safety_reward_test.cpp only (inside ```sql fences, <answer> tags and
# {"answer": ...} objects, for every benchmark): each must score 0 with no_sql_extracted.
;
;;;
 ;  ; 
-- a comment in place of a query
/* a block comment in place of a query */
/* an unterminated block comment
;-- and a trailing comment
/* a */ ; /* b */ -- c
--{{x0a}};{{x0a}}--
{{x09}};{{x0c}};{{x0d}}
;{{x00}}SELECT name FROM people
/* {{x00}} */ SELECT name FROM people
--{{x00}}{{x0a}}SELECT name FROM people
{{rep 20000|;}}
{{rep 20000|/**/}}
