"""Conversations -> token ids with a loss mask, through the tokenizer's own chat template; plain text -> tokens.

Loss is only on answer tokens: the text each assistant turn adds to the rendered conversation (its content and
the template's end-of-turn marker, so the model learns to stop). Everything else is labelled -100. A plain-text
example (a `text` record) has no template and no answer: every token is a label.
"""
from __future__ import annotations

from dataclasses import dataclass

from amplora.errors import AmploraError

IGNORE = -100


@dataclass
class Encoded:
    input_ids: list[int]
    labels: list[int]
    truncated: bool


@dataclass
class EncodingStats:
    examples: int = 0
    truncated: int = 0  # longer than max_length: cut at the end
    dropped: int = 0  # truncated so hard that no answer token was left: not trained on
    tokens: int = 0
    answer_tokens: int = 0

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def render(tokenizer, messages: list[dict], generation_prompt: bool) -> str:
    if not messages:
        return ""
    try:
        return tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=generation_prompt)
    except Exception as e:  # jinja errors of a user's template: report, don't crash with a traceback
        raise AmploraError(f"the tokenizer's chat template failed: {type(e).__name__}: {e}") from None


def _ids(tokenizer, text: str) -> list[int]:
    return tokenizer(text, add_special_tokens=False)["input_ids"] if text else []


def segments(tokenizer, messages) -> list[tuple[str, bool]]:
    """The rendered conversation cut into (text, is_answer) pieces whose concatenation is the full rendering."""
    pieces, done = [], ""
    for i, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        prompt = render(tokenizer, messages[:i], generation_prompt=True)
        full = render(tokenizer, messages[: i + 1], generation_prompt=False)
        if not prompt.startswith(done) or not full.startswith(prompt):
            raise AmploraError("the tokenizer's chat template is not prefix-stable (rendering a longer "
                               "conversation changes the start), so answer tokens cannot be located")
        pieces += [(prompt[len(done):], False), (full[len(prompt):], True)]
        done = full
    return pieces


def encode_example(tokenizer, messages, max_length: int) -> Encoded:
    input_ids, labels = [], []
    for text, is_answer in segments(tokenizer, messages):
        ids = _ids(tokenizer, text)
        input_ids += ids
        labels += ids if is_answer else [IGNORE] * len(ids)
    truncated = len(input_ids) > max_length
    return Encoded(input_ids[:max_length], labels[:max_length], truncated)


def encode_text(tokenizer, text: str, max_length: int) -> Encoded:
    """The tokenizer's own special tokens (a BOS where it adds one) and an EOS at the end, so that the model
    learns where a document stops; every position is a label."""
    ids = list(tokenizer(text, add_special_tokens=True)["input_ids"])
    if tokenizer.eos_token_id is not None and (not ids or ids[-1] != tokenizer.eos_token_id):
        ids.append(tokenizer.eos_token_id)
    return Encoded(ids[:max_length], ids[:max_length], len(ids) > max_length)


def encode_all(tokenizer, examples, max_length: int) -> tuple[list[Encoded], EncodingStats]:
    stats, out = EncodingStats(), []
    for example in examples:
        enc = encode_text(tokenizer, example.text, max_length) if getattr(example, "text", None) is not None \
            else encode_example(tokenizer, example.messages, max_length)
        stats.examples += 1
        stats.truncated += enc.truncated
        n_answer = sum(1 for t in enc.labels if t != IGNORE)
        if n_answer == 0:
            stats.dropped += 1
            continue
        stats.tokens += len(enc.input_ids)
        stats.answer_tokens += n_answer
        out.append(enc)
    if not out:
        raise AmploraError(f"no example kept an answer token within max_length={max_length} "
                           f"({stats.examples} examples, all truncated); raise --max-length")
    return out, stats


def prompt_ids(tokenizer, prompt_messages, max_length: int) -> list[int]:
    """Token ids of a prompt ending in the template's generation prompt (keeps the end if too long)."""
    ids = _ids(tokenizer, render(tokenizer, prompt_messages, generation_prompt=True))
    return ids[-max_length:]
