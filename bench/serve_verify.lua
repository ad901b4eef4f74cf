-- wrk script for `sqlgrade serve`: POST /verify with NeMo Gym-shaped requests (bench/serve.sh).
-- Four request bodies rotate: a match, a wrong result, no SQL, a gold_result match. Every gold is
-- cached after its first use, so this measures the server path for small results.
local reasoning = string.rep("We need the item names and prices; join nothing, just select. ", 20)
local function body(text, gold)
  return '{"responses_create_params":{"input":[{"role":"user","content":"List items.","type":"message"}]},' ..
         '"response":{"id":"resp_bench","object":"response","output":[{"type":"message","role":"assistant",' ..
         '"content":[{"type":"output_text","annotations":[],"text":' .. text .. '}]}]},' ..
         '"instance_id":"local900","uuid":null,"db_id":"shop","question":"List items.",' ..
         gold .. ',"ignore_order":true,"condition_cols":null,"metadata":null}'
end
local gold_sql = '"gold_sql":"SELECT name, price FROM item ORDER BY id"'
local gold_res = '"gold_sql":null,"gold_result":[[["apple",1.5],["pear",2.25],["fig",10.0],["kiwi",9.99]]]'
local bodies = {
  body('"' .. reasoning .. '\\n```sql\\nSELECT name, price FROM item\\n```"', gold_sql),
  body('"' .. reasoning .. '\\n```sql\\nSELECT name, qty FROM item WHERE id < 3\\n```"', gold_sql),
  body('"' .. reasoning .. ' I give up."', gold_sql),
  body('"' .. reasoning .. '\\n```sql\\nSELECT name, price FROM item ORDER BY name\\n```"', gold_res),
}
local i = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  i = i + 1
  return wrk.format(nil, nil, nil, bodies[(i % #bodies) + 1])
end
