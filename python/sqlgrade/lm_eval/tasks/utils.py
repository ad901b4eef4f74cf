# lm-eval resolves `!function utils.<name>` in this folder's YAML files to this module.
from sqlgrade.lm_eval import bird_dataset, process_results, spider2_dataset, spider_dataset  # noqa: F401
