"""`--model sqlgrade/gold` and `--model sqlgrade/none`: offline stand-in models for trying the sqlgrade
tasks with no model and no network (registered through the package's inspect_ai entry point):

    inspect eval sqlgrade/spider -T data_dir="$SQLGRADE_DATA/spider" --model sqlgrade/gold --limit 4

* ``gold`` answers each sample's target (its gold SQL) in a ```` ```sql ```` block: every sample scores
  C, so the accuracy printed is 1.0 and the task, the scorer and the databases are checked end to end;
* ``none`` answers ``I do not know.``: every sample scores I (failure reason ``no_sql_extracted``).

Why not inspect's own ``mockllm/model``: its outputs carry no token usage, so inspect counts the tokens
with tiktoken, which downloads its ``o200k_base`` table on first use and fails without network. These
models report their usage themselves (characters / 4), so nothing is downloaded.
The sample's target comes from inspect's current task state (``sample_state()``, inspect-ai 0.3.285, the
version tested: python/tests/hosts/test_docs_commands.py).
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, ModelUsage, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo

_ANSWERS = ("gold", "none")


class SqlgradeStandIn(ModelAPI):
    """The `sqlgrade/<gold|none>` model API (see the module docstring)."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig = GenerateConfig(), **model_args: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if model_name not in _ANSWERS:
            raise ValueError(f"sqlgrade/{model_name}: unknown stand-in model (sqlgrade/gold or sqlgrade/none)")

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                       config: GenerateConfig) -> ModelOutput:
        if self.model_name == "gold":
            from inspect_ai.solver._task_state import sample_state

            state = sample_state()
            if state is None:
                raise RuntimeError("sqlgrade/gold answers inside an inspect eval only (no current sample)")
            answer = f"```sql\n{state.target.text}\n```"
        else:
            answer = "I do not know."
        out = ModelOutput.from_content(model=f"sqlgrade/{self.model_name}", content=answer)
        prompt = sum(len(m.text) for m in input)
        out.usage = ModelUsage(input_tokens=prompt // 4 + 1, output_tokens=len(answer) // 4 + 1,
                               total_tokens=prompt // 4 + len(answer) // 4 + 2)
        return out


@modelapi(name="sqlgrade")
def sqlgrade_models() -> type[ModelAPI]:
    return SqlgradeStandIn
