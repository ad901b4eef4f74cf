-- wrk script for `sqlgrade serve`: POST /verify with NeMo Gym-shaped requests (bench/serve.sh,
-- bench/serve_runaways.sh). Four request bodies rotate: a match, a wrong result, no SQL, a
-- gold_result match. Every gold is cached after its first use, so this measures the server path for
-- small results.
-- Environment (optional): SQLGRADE_BENCH_BODIES=runaway sends only a prediction that never ends
-- (a recursive CTE stopped by the server's --timeout); SQLGRADE_BENCH_DELAY_MS=D makes each
-- connection wait a random time of mean D ms (exponential) before each request, so that N
-- connections offer about N * 1000 / D requests per second (while the latency stays well below D).
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
if os.getenv("SQLGRADE_BENCH_BODIES") == "runaway" then
  bodies = {
    body('"' .. reasoning .. '\\n```sql\\nWITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) ' ..
         'SELECT max(x) FROM c\\n```"', gold_sql),
  }
end
local pace = tonumber(os.getenv("SQLGRADE_BENCH_DELAY_MS") or "")
if pace then
  -- exponential waits of mean `pace`: the connections do not fall into step, and their sum is
  -- close to a Poisson stream of arrivals
  math.randomseed(os.time() + math.floor(os.clock() * 1e6))
  delay = function() return -pace * math.log(1 - math.random()) end
end
local i = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  i = i + 1
  return wrk.format(nil, nil, nil, bodies[(i % #bodies) + 1])
end
