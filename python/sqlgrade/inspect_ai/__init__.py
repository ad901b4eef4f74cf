"""sqlgrade for inspect_ai: the `sqlgrade` scorer and Spider / BIRD / Spider 2.0-Lite tasks.

    from sqlgrade.inspect_ai import sqlgrade_scorer, spider, bird, spider2_lite
    inspect eval sqlgrade/spider -T data_dir=/data/spider --model openai/gpt-4o-mini --limit 50
    inspect score --scorer sqlgrade/sqlgrade logs/....eval

The scorer and the tasks are registered with inspect_ai through the package's `inspect_ai` entry point
(pyproject.toml), under the names `sqlgrade/sqlgrade`, `sqlgrade/spider`, `sqlgrade/bird` and
`sqlgrade/spider2_lite`. Importing this package imports inspect_ai.
"""

from .scorer import sqlgrade_scorer
from .tasks import bird, spider, spider2_lite

__all__ = ["sqlgrade_scorer", "spider", "bird", "spider2_lite"]
