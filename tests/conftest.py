"""Suite-wide: the process settings the `amplora` command line uses, set before any test imports torch; and the
damaged-adapter-directory fixtures that the adapter and the command-line tests share."""
import json

import pytest

from amplora.cli import set_process_env

set_process_env()


@pytest.fixture
def adapter(saved_adapter, tmp_path):
    """A writable copy of the test module's `saved_adapter` directory, for one test to damage."""
    d = tmp_path / "adapter"
    d.mkdir()
    for f in saved_adapter.iterdir():
        (d / f.name).write_bytes(f.read_bytes())
    return d


@pytest.fixture
def edit_config():
    """`edit_config(adapter_dir, key=value, ...)` rewrites keys of its adapter_config.json."""
    def edit(d, **changes):
        cfg = json.loads((d / "adapter_config.json").read_text())
        cfg.update(changes)
        (d / "adapter_config.json").write_text(json.dumps(cfg))
    return edit


@pytest.fixture
def rewrite_tensors():
    """`rewrite_tensors(adapter_dir, fn)` lets `fn` change the dict of its adapter_model.safetensors in place."""
    from safetensors.torch import load_file, save_file

    def rewrite(d, fn):
        tensors = load_file(d / "adapter_model.safetensors")
        fn(tensors)
        save_file(tensors, d / "adapter_model.safetensors")
    return rewrite
