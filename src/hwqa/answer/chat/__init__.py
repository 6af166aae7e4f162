"""The chat model's answer: an OpenAI-compatible server writes it, hwqa checks it.

- :mod:`.prompt`: what the model is sent; :mod:`.llm`: the answerer and its tool-call rounds;
- :mod:`.claims`: each sentence checked against its cited passages; :mod:`.grounded`: the calculator
  planned first, claims checked while streaming, the builtin answer as the fallback;
- :mod:`.localmodel`: the bundled small model and its server's command line.
"""

__all__ = ["claims", "grounded", "llm", "localmodel", "prompt"]
