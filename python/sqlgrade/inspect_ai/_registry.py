"""Target of the `inspect_ai` entry point (pyproject.toml): importing it registers the scorer, the offline
stand-in models (`sqlgrade/gold`, `sqlgrade/none`) and the
tasks with inspect_ai's registry (`sqlgrade/sqlgrade`, `sqlgrade/spider`, ...)."""

from .scorer import sqlgrade_scorer  # noqa: F401
from .tasks import bird, spider, spider2_lite  # noqa: F401
from .model import sqlgrade_models  # noqa: F401  (--model sqlgrade/gold, sqlgrade/none: offline stand-ins)
