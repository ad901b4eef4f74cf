"""SkyRL: a multi-turn text-to-SQL environment for skyrl-gym.

The shape is skyrl-gym's ``BaseTextEnv``: ``SQLEnv(env_config, extras)``, ``init(prompt) ->
(prompt, metadata)``, ``step(action) -> {"observations", "reward", "done", "metadata",
"postprocessed_action"}``, ``close()``. Like SkyRL-SQL's environment:

* an action is cut after its first ``</sql>`` or ``</solution>``;
* ``<sql>...</sql>`` runs the query through :func:`sqlgrade.execute` (read-only, deadline, row and
  size caps) and returns its table, or its error, as the next user message in
  ``<observation>...</observation>``; the reward of such a step is 0;
* ``<solution>...</solution>`` (or the last turn, ``max_turns``, default 5) ends the episode: the
  last solution is graded by :func:`sqlgrade.verdict` and its shaped score is the reward. The
  default ``no_sql_score`` here is -1.0 (SkyRL-SQL's penalty for a missing solution); every
  shaping option can be set in ``env_config``.

``extras`` (one dataset row): ``reward_spec.ground_truth`` or ``gold_sql``; ``db_path``, or
``db_id`` with ``env_config.db_path`` as the root folder (``<root>/<db_id>/<db_id>.sqlite``; with
``extras["data"]`` = ``synsql`` / ``spider`` / ``bird`` the SkyRL-SQL sub-folders are used);
optional ``benchmark``, ``max_turns`` and every other label key of the data contract
(``alternative_answers``, ``verify``, ``shaping``, ...; docs/python.md). ``env_config`` (mapping or
attribute object): ``db_path``, ``timeout``, ``max_rows``, ``max_chars`` and shaping keywords.

When skyrl-gym is installed the class derives from its ``BaseTextEnv``; register it with
``skyrl_gym.envs.register(id="sqlgrade_sql", entry_point="sqlgrade.skyrl:SQLEnv")``.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Mapping, Optional, Tuple

from . import api
from ._rows import row_kwargs, row_shaping
from .config import config
from .errors import InputError
from .results import Verdict
from .shaping import SHAPING_KWARGS

__all__ = ["SQLEnv"]

try:  # pragma: no cover - depends on skyrl-gym being installed
    from skyrl_gym.envs.base_text_env import BaseTextEnv as _Base  # type: ignore[import-not-found]
except ImportError:  # the same interface without the dependency
    class _Base:  # type: ignore[no-redef]
        def __init__(self) -> None:
            self.turns = 0
            self.max_turns = 1

        def close(self) -> None:
            pass

# SkyRL-SQL's folder of each data source below env_config.db_path.
_SKYRL_DIRS = {"synsql": "SynSQL-2.5M/databases", "spider": "spider/database", "bird": "bird/train/train_databases"}


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if obj is None:
        return default
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _between(text: str, open_tag: str, close_tag: str, last: bool) -> Optional[str]:
    """Content of the first (or last) complete open_tag...close_tag pair, or None.

    Linear in ``len(text)``: at most three scans, whatever the number of tags. (It used to try every
    open tag from the last one back, each with a search to the end for its close tag: quadratic in
    the unclosed tags, 66 s for a 625 KiB action of ``<solution>`` tags; issue 19.) The last open tag
    that has a close tag after it is the last one that ends before the last close tag."""
    if last:
        end = text.rfind(close_tag)
        a = text.rfind(open_tag, 0, end) if end >= 0 else -1
    else:
        a = text.find(open_tag)
    if a < 0:
        return None
    b = text.find(close_tag, a + len(open_tag))
    return text[a + len(open_tag):b] if b >= 0 else None


class SQLEnv(_Base):
    """Text-to-SQL environment: ``<sql>`` for observations, ``<solution>`` for the reward."""

    def __init__(self, env_config: Any = None, extras: Optional[Mapping[str, Any]] = None) -> None:
        super().__init__()
        extras = dict(extras or {})
        spec = extras.get("reward_spec") or {}
        row = dict(extras)
        if row.get("gold_sql") is None and _get(spec, "ground_truth") is not None:
            row["gold_sql"] = _get(spec, "ground_truth")
        if not row.get("db_path") and row.get("db_id") and _get(env_config, "db_path"):
            root = str(_get(env_config, "db_path"))
            sub = _SKYRL_DIRS.get(str(row.get("data", "")).lower())
            folder = os.path.join(root, sub) if sub else root
            row["db_path"] = os.path.join(folder, str(row["db_id"]), f"{row['db_id']}.sqlite")
        kw = row_kwargs(row, what="extras")
        if kw is None:
            raise InputError("extras: no gold (reward_spec.ground_truth or gold_sql)")
        self._kw = kw
        self.max_turns = int(extras.get("max_turns", _get(env_config, "max_turns", 5)))
        self.timeout = float(_get(env_config, "timeout", 10.0))
        self.max_rows = int(_get(env_config, "max_rows", 50))
        self.max_chars = int(_get(env_config, "max_chars", 4000))
        self.shaping: Dict[str, Any] = {"no_sql_score": -1.0}
        self.shaping.update({k: _get(env_config, k) for k in SHAPING_KWARGS if _get(env_config, k) is not None})
        self.chat_history: List[Dict[str, str]] = []
        self.last_verdict: Optional[Verdict] = None

    def init(self, prompt: List[Dict[str, str]]) -> Tuple[List[Dict[str, str]], Dict[str, Any]]:
        self.turns = 0
        self.chat_history = list(prompt or [])
        return prompt, {}

    @staticmethod
    def _postprocess(action: str) -> str:
        cuts = [i + len(t) for t, i in (("</sql>", action.find("</sql>")), ("</solution>", action.find("</solution>")))
                if i >= 0]
        return action[: min(cuts)] if cuts else action

    def _grade(self) -> float:
        text = "".join(m.get("content", "") for m in self.chat_history if m.get("role") == "assistant")
        solution = _between(text, "<solution>", "</solution>", last=True)
        fenced = solution is not None and "```" in solution
        kw = dict(self._kw)
        shaping = row_shaping(kw, config().shaping.with_kwargs(dict(self.shaping)))
        row_extract = kw.pop("extract", True)
        extract = row_extract if fenced else False  # the row's extraction options, for a fenced answer
        v = api.verdict(solution or "", extract=extract, shaping=shaping, **kw)
        self.last_verdict = v
        return v.score

    def step(self, action: str) -> Dict[str, Any]:
        self.turns += 1
        action = self._postprocess(action or "")
        self.chat_history.append({"role": "assistant", "content": action})
        done = self.turns >= self.max_turns or _between(action, "<solution>", "</solution>", last=False) is not None
        if done:
            reward = self._grade()
            info = {"verdict": self.last_verdict.to_dict() if self.last_verdict else None}
            return {"observations": [], "reward": reward, "done": True, "metadata": info,
                    "postprocessed_action": action}
        sql = _between(action, "<sql>", "</sql>", last=False)
        if sql is None or not sql.strip():
            content = ("<observation>\nNo query found: put a SQL query in <sql>...</sql>, or the final answer "
                       "in <solution>...</solution>.\n</observation>")
            meta: Dict[str, Any] = {"tool_input": None}
        else:
            r = api.execute(self._kw["db"], sql, benchmark=self._kw.get("benchmark"), timeout=self.timeout,
                            max_rows=self.max_rows, max_chars=self.max_chars)
            content = f"<observation>\n{r.text}\n</observation>"
            meta = {"tool_input": sql, "status": r.status}
        obs = {"role": "user", "content": content}
        self.chat_history.append(obs)
        return {"observations": [obs], "reward": 0.0, "done": False, "metadata": meta, "postprocessed_action": action}
