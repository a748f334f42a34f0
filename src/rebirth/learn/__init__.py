"""A learned evaluation: self-play data (:mod:`.selfplay`), training (:mod:`.train`, needs the
``train`` extra with PyTorch) and a numpy value network for inference (:mod:`.value`)."""
