"""Maths prompts: GSM8K, MATH-500, AIME. Zero-shot asks for reasoning and a marked final answer;
few-shot follows each benchmark's convention, with the examples given as earlier user/assistant
turns so that the provider's chat template frames them.

- GSM8K zero-shot: reason, then "The answer is N."; few-shot: the 8 chain-of-thought examples of
  Wei et al. (2022), as lm-evaluation-harness's gsm8k_cot uses them.
- MATH-500 / AIME zero-shot: reason, then the answer in \\boxed{}; MATH-500 few-shot: the 4
  Minerva examples (Lewkowycz et al. 2022), ending "Final Answer: The final answer is $X$. I hope
  it is correct."
"""

from __future__ import annotations

from proctor.errors import ConfigError
from proctor.types import Message, Prompt, Sample

ZERO_SHOT = "zero-shot"
FEW_SHOT = "few-shot"

GSM8K_ZERO_SHOT = (
    "Solve the following grade-school math problem. Reason step by step, then end your reply"
    ' with a sentence of the form "The answer is N." where N is the final number alone, with no'
    " units.\n\nQuestion: {question}"
)

GSM8K_EXAMPLES: tuple[tuple[str, str], ...] = (
    (
        "There are 15 trees in the grove. Grove workers will plant trees in the grove today. After"
        " they are done, there will be 21 trees. How many trees did the grove workers plant today?",
        "There are 15 trees originally. Then there were 21 trees after some more were planted. So"
        " there must have been 21 - 15 = 6. The answer is 6.",
    ),
    (
        "If there are 3 cars in the parking lot and 2 more cars arrive, how many cars are in the"
        " parking lot?",
        "There are originally 3 cars. 2 more cars arrive. 3 + 2 = 5. The answer is 5.",
    ),
    (
        "Leah had 32 chocolates and her sister had 42. If they ate 35, how many pieces do they have"
        " left in total?",
        "Originally, Leah had 32 chocolates. Her sister had 42. So in total they had 32 + 42 = 74."
        " After eating 35, they had 74 - 35 = 39. The answer is 39.",
    ),
    (
        "Jason had 20 lollipops. He gave Denny some lollipops. Now Jason has 12 lollipops. How many"
        " lollipops did Jason give to Denny?",
        "Jason started with 20 lollipops. Then he had 12 after giving some to Denny. So he gave"
        " Denny 20 - 12 = 8. The answer is 8.",
    ),
    (
        "Shawn has five toys. For Christmas, he got two toys each from his mom and dad. How many"
        " toys does he have now?",
        "Shawn started with 5 toys. If he got 2 toys each from his mom and dad, then that is 4"
        " more toys. 5 + 4 = 9. The answer is 9.",
    ),
    (
        "There were nine computers in the server room. Five more computers were installed each"
        " day, from monday to thursday. How many computers are now in the server room?",
        "There were originally 9 computers. For each of 4 days, 5 more computers were added. So"
        " 5 * 4 = 20 computers were added. 9 + 20 is 29. The answer is 29.",
    ),
    (
        "Michael had 58 golf balls. On tuesday, he lost 23 golf balls. On wednesday, he lost 2"
        " more. How many golf balls did he have at the end of wednesday?",
        "Michael started with 58 golf balls. After losing 23 on tuesday, he had 58 - 23 = 35."
        " After losing 2 more, he had 35 - 2 = 33 golf balls. The answer is 33.",
    ),
    (
        "Olivia has $23. She bought five bagels for $3 each. How much money does she have left?",
        "Olivia had 23 dollars. 5 bagels for 3 dollars each will be 5 x 3 = 15 dollars. So she"
        " has 23 - 15 dollars left. 23 - 15 is 8. The answer is 8.",
    ),
)

BOXED_ZERO_SHOT = (
    "{problem}\n\nPlease reason step by step, and put your final answer within \\boxed{{}}."
)

MINERVA_EXAMPLES: tuple[tuple[str, str], ...] = (
    (
        "Find the domain of the expression  $\\frac{\\sqrt{x-2}}{\\sqrt{5-x}}$.",
        "The expressions inside each square root must be non-negative. Therefore, $x-2 \\ge 0$,"
        " so $x\\ge2$, and $5 - x \\ge 0$, so $x \\le 5$. Also, the denominator cannot be equal"
        " to zero, so $5-x>0$, which gives $x<5$. Therefore, the domain of the expression is"
        " $\\boxed{[2,5)}$.\nFinal Answer: The final answer is $[2,5)$. I hope it is correct.",
    ),
    (
        "If $\\det \\mathbf{A} = 2$ and $\\det \\mathbf{B} = 12,$ then find"
        " $\\det (\\mathbf{A} \\mathbf{B}).$",
        "We have that $\\det (\\mathbf{A} \\mathbf{B}) = (\\det \\mathbf{A})(\\det \\mathbf{B})"
        " = (2)(12) = \\boxed{24}.$\nFinal Answer: The final answer is $24$. I hope it is"
        " correct.",
    ),
    (
        "Terrell usually lifts two 20-pound weights 12 times. If he uses two 15-pound weights"
        " instead, how many times must Terrell lift them in order to lift the same total weight?",
        "If Terrell lifts two 20-pound weights 12 times, he lifts a total of"
        " $2\\cdot 12\\cdot20=480$ pounds of weight.  If he lifts two 15-pound weights instead"
        " for $n$ times, he will lift a total of $2\\cdot15\\cdot n=30n$ pounds of weight."
        "  Equating this to 480 pounds, we can solve for $n$:\n\\begin{align*}\n30n&=480\\\\\n"
        "\\Rightarrow\\qquad n&=480/30=\\boxed{16}\n\\end{align*}\nFinal Answer: The final answer"
        " is $16$. I hope it is correct.",
    ),
    (
        "If the system of equations\n\n\\begin{align*}\n6x-4y&=a,\\\\\n6y-9x &=b.\n"
        "\\end{align*}has a solution $(x, y)$ where $x$ and $y$ are both nonzero,\nfind"
        " $\\frac{a}{b},$ assuming $b$ is nonzero.",
        "If we multiply the first equation by $-\\frac{3}{2}$, we obtain\n\n"
        "$$6y-9x=-\\frac{3}{2}a.$$Since we also know that $6y-9x=b$, we have\n\n"
        "$$-\\frac{3}{2}a=b\\Rightarrow\\frac{a}{b}=\\boxed{-\\frac{2}{3}}.$$\nFinal Answer: The"
        " final answer is $-\\frac{2}{3}$. I hope it is correct.",
    ),
)

MINERVA_TURN = "Problem:\n{problem}\n\nSolution:"

VARIANTS: dict[str, str] = {
    ZERO_SHOT: "zero-shot: reason step by step, then a marked final answer",
    FEW_SHOT: "few-shot: the benchmark's worked examples as earlier turns",
}


def check_variant(variant: str, allowed: tuple[str, ...]) -> str:
    v = variant.strip().lower().replace("_", "-")
    aliases = {"0-shot": ZERO_SHOT, "zeroshot": ZERO_SHOT, "fewshot": FEW_SHOT}
    v = aliases.get(v, v)
    if v not in allowed:
        raise ConfigError(f"unknown prompt variant {variant!r}: use {' or '.join(allowed)}")
    return v


def _check_lang(lang: str) -> str:
    if lang.lower() != "en":
        raise ConfigError(f"this benchmark's prompts are in English only, not {lang!r}")
    return "en"


def gsm8k_prompt(sample: Sample, variant: str, lang: str) -> Prompt:
    v = check_variant(variant, (ZERO_SHOT, FEW_SHOT))
    la = _check_lang(lang)
    if v == ZERO_SHOT:
        text = GSM8K_ZERO_SHOT.format(question=sample.input)
        return Prompt((Message("user", text),), v, la)
    turns: list[Message] = []
    for question, answer in GSM8K_EXAMPLES:
        turns += [Message("user", f"Q: {question}"), Message("assistant", answer)]
    turns.append(Message("user", f"Q: {sample.input}"))
    return Prompt(tuple(turns), v, la)


def boxed_prompt(sample: Sample, variant: str, lang: str) -> Prompt:
    """MATH-500 and AIME: zero-shot with \\boxed{}; few-shot with the Minerva examples."""
    v = check_variant(variant, (ZERO_SHOT, FEW_SHOT))
    la = _check_lang(lang)
    if v == ZERO_SHOT:
        return Prompt((Message("user", BOXED_ZERO_SHOT.format(problem=sample.input)),), v, la)
    turns: list[Message] = []
    for problem, solution in MINERVA_EXAMPLES:
        turns += [
            Message("user", MINERVA_TURN.format(problem=problem)),
            Message("assistant", solution),
        ]
    turns.append(Message("user", MINERVA_TURN.format(problem=sample.input)))
    return Prompt(tuple(turns), v, la)


def aime_prompt(sample: Sample, variant: str, lang: str) -> Prompt:
    """AIME has no few-shot convention: zero-shot only."""
    check_variant(variant, (ZERO_SHOT,))
    return boxed_prompt(sample, ZERO_SHOT, lang)
