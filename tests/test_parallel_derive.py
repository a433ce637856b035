"""The two-process derivation gives exactly the sequential result, so certificates do not depend on --jobs."""

from __future__ import annotations

import pytest

from verified_aat.certificates.document import build_certificate, dumps_certificate
from verified_aat.circuits.families import build_family
from verified_aat.constructions.registry import get_construction
from verified_aat.symbolic import derive
from verified_aat.symbolic.certify import certify

from checking import check


def _certify(circuit, construction, jobs):
    result = certify(circuit, get_construction(construction), jobs=jobs, refute=False)
    return result, dumps_certificate(build_certificate(result, include_timings=False))


@pytest.mark.parametrize("family, n, construction", [("relu", 40, "gate-edge"), ("random-fsac", 60, "gate-edge"),
                                                     ("inner-product", 30, "gate-edge-dot"),
                                                     ("random-fsac", 40, "edge-only")])
def test_two_processes_give_the_sequential_certificate(family, n, construction, monkeypatch):
    circuit = build_family(family, n)
    sequential, text = _certify(circuit, construction, jobs=1)
    monkeypatch.setattr(derive, "PARALLEL_MIN_POSITIONS", 2)
    monkeypatch.setattr(derive, "STRIPE", 3)
    forked = {"count": 0}
    real_split = derive._in_two_processes

    def counting_split(*args, **kwargs):
        forked["count"] += 1
        return real_split(*args, **kwargs)

    monkeypatch.setattr(derive, "_in_two_processes", counting_split)
    parallel, parallel_text = _certify(circuit, construction, jobs=2)
    assert forked["count"] == 1
    assert sequential.status == parallel.status == "proved"
    assert parallel_text == text
    assert {k: (l.kind, l.uses, l.first_use) for k, l in parallel.derivation.lemmas.items()} == \
        {k: (l.kind, l.uses, l.first_use) for k, l in sequential.derivation.lemmas.items()}
    assert list(parallel.derivation.lemmas) == list(sequential.derivation.lemmas)  # same first-use order
    assert parallel.derivation.kinds == sequential.derivation.kinds


def test_a_failing_child_is_replaced_by_deriving_its_half_here(monkeypatch):
    circuit = build_family("relu", 20)
    _, text = _certify(circuit, "gate-edge", jobs=1)
    monkeypatch.setattr(derive, "PARALLEL_MIN_POSITIONS", 2)
    monkeypatch.setattr(derive, "STRIPE", 3)
    real = derive._derive_range
    parent = derive.os.getpid()

    def child_dies(*args, **kwargs):
        if derive.os.getpid() != parent:
            derive.os._exit(3)
        return real(*args, **kwargs)

    monkeypatch.setattr(derive, "_derive_range", child_dies)
    result, parallel_text = _certify(circuit, "gate-edge", jobs=2)
    assert parallel_text == text
    assert check(build_certificate(result, include_timings=False)).accepted


def test_a_wrong_transformer_fails_the_same_way_in_both_modes(monkeypatch):
    circuit = build_family("relu", 12)
    construction = get_construction("gate-edge")
    compiled = construction.compile(circuit)
    from dataclasses import replace
    layers = list(compiled.transformer.layers)
    layers[0], layers[1] = layers[1], layers[0]  # two layers swapped: the schedule no longer holds
    wrong = replace(compiled.transformer, layers=tuple(layers))
    one = certify(circuit, construction, transformer=wrong, refute=False)
    monkeypatch.setattr(derive, "PARALLEL_MIN_POSITIONS", 2)
    monkeypatch.setattr(derive, "STRIPE", 3)
    two = certify(circuit, construction, transformer=wrong, refute=False, jobs=2)
    assert one.status != "proved" and two.status == one.status
    assert two.problems == one.problems


# -- the kernel's two-process derivation ---------------------------------------------------------

def test_stripes_partition_the_positions():
    for n in (0, 1, 5, 4096, 10_000):
        a, b = [p for r in derive.stripes(n, 0, 7) for p in r], [p for r in derive.stripes(n, 1, 7) for p in r]
        assert sorted(a + b) == list(range(n)) and a == sorted(a) and b == sorted(b)
        assert abs(len(a) - len(b)) <= 7


def _kernel_split(monkeypatch):
    from verified_aat.kernel import obligations as kernel_obligations

    calls = {"forks": 0}
    real_fork = kernel_obligations.os.fork

    def counting_fork():
        calls["forks"] += 1
        return real_fork()

    monkeypatch.setattr(kernel_obligations, "PARALLEL_MIN_POSITIONS", 2)
    monkeypatch.setattr(kernel_obligations, "STRIPE", 3)
    monkeypatch.setattr(kernel_obligations.os, "fork", counting_fork)
    return calls


@pytest.mark.parametrize("family, n, construction", [("relu", 30, "gate-edge"), ("inner-product", 20, "gate-edge-dot"),
                                                     ("random-fsac", 30, "edge-only")])
def test_the_kernel_accepts_the_same_in_two_processes(family, n, construction, monkeypatch):
    result, _ = _certify(build_family(family, n), construction, jobs=1)
    doc = build_certificate(result, include_timings=False)
    sequential = check(doc)
    calls = _kernel_split(monkeypatch)
    parallel = check(doc, jobs=2)
    assert calls["forks"] == 1
    assert sequential.accepted and parallel.accepted
    assert (parallel.lemmas, parallel.obligations) == (sequential.lemmas, sequential.obligations)


def test_a_forged_use_count_is_rejected_in_two_processes_too(monkeypatch):
    import copy

    result, _ = _certify(build_family("relu", 30), "gate-edge", jobs=1)
    doc = build_certificate(result, include_timings=False)
    forged = copy.deepcopy(doc)
    forged["lemmas"][-1]["uses"] += 1
    sequential = check(forged)
    _kernel_split(monkeypatch)
    parallel = check(forged, jobs=2)
    assert not sequential.accepted and not parallel.accepted
    assert [str(r) for r in parallel.rejections] == [str(r) for r in sequential.rejections]
    assert parallel.rejections[0].check == "lemmas"
