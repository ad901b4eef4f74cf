# Malformed and extreme text. {{rep N|TEXT}} is expanded to TEXT repeated N times and {{xHH}} to
# the byte 0xHH when the test loads this file (the corpus stays readable text).
SELECT {{rep 5000|(}}1{{rep 5000|)}}
SELECT {{rep 100000|(}}1{{rep 100000|)}}
SELECT 1{{rep 20000| + 1}}
SELECT name FROM people WHERE {{rep 3000|NOT }}0
SELECT {{rep 2000|(SELECT }}1{{rep 2000|)}}
SELECT CASE {{rep 3000|WHEN 1 THEN (CASE }}1{{rep 3000| END)}} END
SELECT name FROM people WHERE id IN ({{rep 100000|1,}}1)
SELECT '{{rep 8000000|A}}'
SELECT length('{{rep 20000000|B}}')
SELECT x'{{rep 4000000|ff}}'
SELECT '{{xFF}}{{xFE}}{{xC3}}{{x28}}'
SELECT name FROM people WHERE name = '{{xC0}}{{xAF}}'
SELECT{{xA0}}1
SELECT "{{xED}}{{xA0}}{{x80}}" FROM people
SELECT 1 {{x00}} ; DROP TABLE people
SELECT 'unterminated
SELECT "unterminated
SELECT 1 /* unterminated comment
SELECT
)(
SELECT * FROM
SELECT name FROM people WHERE id = 7 ORDER BY
{{rep 3000|WITH x AS (SELECT 1) }}SELECT 1
SELECT {{rep 3000|abs(}}1{{rep 3000|)}}
SELECT {{rep 200|a.id + }}1 FROM people a
SELECT name FROM people {{rep 64|JOIN people USING (id) }}
{{x1B}}[2J{{x1B}}[31mSELECT 1
SELECT '{{rep 1000|\}}'
SELECT ?
SELECT :name, @x, $y
SELECT ?999999999
