"""``BCEWithLogitsLoss`` and ``BCELoss``: PyTorch's modules of the same names, computed by this library."""

from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor

from . import functional as _F

__all__ = ["BCELoss", "BCEWithLogitsLoss"]


class BCEWithLogitsLoss(torch.nn.BCEWithLogitsLoss):
    """``torch.nn.BCEWithLogitsLoss`` whose forward is ``aclnn_bce.torch.functional.
    binary_cross_entropy_with_logits``: the same constructor (weight=None, size_average=None,
    reduce=None, reduction='mean', pos_weight=None), weight and pos_weight registered as buffers
    (they follow ``.to()`` and appear in ``state_dict``), the same results. A subclass of PyTorch's
    module, so ``isinstance`` checks and saved state carry over.
    """

    def __init__(
        self,
        weight: Optional[Tensor] = None,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
        reduction: str = "mean",
        pos_weight: Optional[Tensor] = None,
    ) -> None:
        """Keeps weight and pos_weight as buffers and the reduction (the legacy pair
        size_average / reduce, if given, decides it, as in PyTorch)."""
        super().__init__(weight, size_average, reduce, reduction, pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of the logits ``input`` against the labels ``target`` (same shape)."""
        return _F.binary_cross_entropy_with_logits(
            input, target, self.weight, pos_weight=self.pos_weight, reduction=self.reduction
        )


class BCELoss(torch.nn.BCELoss):
    """``torch.nn.BCELoss`` whose forward is ``aclnn_bce.torch.functional.binary_cross_entropy``:
    the same constructor (weight=None, size_average=None, reduce=None, reduction='mean'), weight
    registered as a buffer, the same results. A subclass of PyTorch's module."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of the probabilities ``input`` against the labels ``target`` (same shape)."""
        return _F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)
