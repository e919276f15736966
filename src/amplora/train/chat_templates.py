"""`--chat-template`: a chat template by name, or read from a Jinja file, for a model whose tokenizer has none.

The named templates are the ones their model families publish, written out here so that nothing is downloaded.
A given template replaces the tokenizer's own (an explicit choice wins); without one the tokenizer's is used, and
a tokenizer with none can only train on plain-text data.
"""
from __future__ import annotations

from pathlib import Path

from amplora.errors import AmploraError
from amplora.train.tiny_model import CHATML
from amplora.train.user_files import read_bytes

TEMPLATES = {
    # ChatML (Qwen, SmolLM2, OpenHermes...), without a default system prompt
    "chatml": CHATML,
    # Meta-Llama-3-Instruct's template
    "llama3": (
        "{% set loop_messages = messages %}{% for message in loop_messages %}"
        "{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'"
        "+ message['content'] | trim + '<|eot_id|>' %}"
        "{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}"
        "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}"
    ),
    # HuggingFaceH4/zephyr-7b-beta's template (the tokenizer's eos_token ends each turn)
    "zephyr": (
        "{% for message in messages %}\n"
        "{% if message['role'] == 'user' %}\n{{ '<|user|>\n' + message['content'] + eos_token }}\n"
        "{% elif message['role'] == 'system' %}\n{{ '<|system|>\n' + message['content'] + eos_token }}\n"
        "{% elif message['role'] == 'assistant' %}\n{{ '<|assistant|>\n'  + message['content'] + eos_token }}\n"
        "{% endif %}\n"
        "{% if loop.last and add_generation_prompt %}\n{{ '<|assistant|>' }}\n{% endif %}\n"
        "{% endfor %}"
    ),
}
MAX_TEMPLATE_BYTES = 1 << 20  # the largest published templates are a few KiB


def read_chat_template(value: str | None) -> str | None:
    """The template text for a --chat-template value (None: none given). A name wins over a file of that name
    only when no such file exists, so `./chatml` is the file."""
    if value is None:
        return None
    value = str(value)
    path = Path(value).expanduser()
    if value.lower() in TEMPLATES and not path.exists():
        return TEMPLATES[value.lower()]
    if not path.exists():
        raise AmploraError(f"chat template {value!r} is neither a known name ({', '.join(TEMPLATES)}) nor a file")
    data = read_bytes(path, "chat template file", MAX_TEMPLATE_BYTES)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise AmploraError(f"chat template file {path}: not UTF-8 text (byte {e.start})") from None
    if not text.strip():
        raise AmploraError(f"chat template file {path} is empty")
    _check_syntax(text, str(path))
    return text


def _check_syntax(text: str, where: str) -> None:
    """A Jinja syntax error now, naming the file and line, rather than at the first rendering."""
    import jinja2

    try:  # transformers' own environment: its extensions ({% generation %}, loop controls) parse there
        from transformers.utils.chat_template_utils import _compile_jinja_template as compile_
    except ImportError:  # a transformers without that helper: plain Jinja, which parses most templates
        compile_ = jinja2.Environment(extensions=["jinja2.ext.loopcontrols"]).parse
    try:
        compile_(text)
    except jinja2.TemplateSyntaxError as e:
        raise AmploraError(f"chat template file {where}:{e.lineno}: Jinja syntax error: {e.message}") from None
