"""The recall-safe gate of the Instruction Recognizer's stage 1 (REA paper, sections 3.3, A.4, D.3).

Stage 1 may answer "not global" without a model, and a global instruction it wrongly stops never
reaches Instructional Memory: the costliest recognizer error (about 2 IAR points, D.3). The old
filter stopped every input without a cue from a short list ("from now on", "always", "in
lowercase", ...), which lost plain standing instructions such as "Keep a formal tone with me
throughout our conversation" before stage 2 could see them.

So the gate is written the other way round: it names everything that *can* shape later replies
(tone, format, persona, language, length, sign-offs, standing facts about the user, scope words
such as "whatever I ask", "every response", "all ... you write", "throughout") and sends any
input with one such cue to stage 2. Only inputs with none of them (plain questions, greetings,
thanks, plain tasks on given content) are decided here. Each family is a named list, so the
recognizer can show which family sent an input on, and tests can name what must pass.

Families are deliberately broad: a false pass costs one stage-2 call (a few milliseconds with
the trained classifier), a false stop costs a lost instruction.
"""

from __future__ import annotations

import re

_FLAGS = re.IGNORECASE


def _family(*patterns: str) -> re.Pattern:
    return re.compile("|".join(f"(?:{p})" for p in patterns), _FLAGS)


# name -> one compiled alternation. Order only affects the order cues are reported in.
GATE_FAMILIES: dict[str, re.Pattern] = {
    # How long the wish lasts, or how widely it applies.
    "scope": _family(
        r"\b(every|each|all|any)\b( of)?( the| your| my)?( \w+)?( \w+)? (responses?|answers?"
        r"|repl(y|ies)|messages?|questions?|times?|texts?|outputs?|things?|prompts?|requests?"
        r"|emails?|code|recipes?|steps?|examples?|explanations?|lines?|paragraphs?|sentences?)\b",
        r"\b(all|every|each|any|everything|anything|whatever|whenever)\b[^.?!]{0,40}\b(you|I)\b",
        r"\b(whatever|whenever|wherever|everything|anything|everywhere)\b",
        r"\bthroughout\b|\bwhile we (chat|talk)\b|\bin general\b"
        r"|\bby default\b|\bfrom (here|now|this point|today|then)\b",
        r"\b(this|our|the) (whole |entire )?(conversation|chat|session|discussion|thread)\b",
        r"\bgoing forward\b|\bhenceforth\b|\bfrom here\b|\b(in|for) (the )?future\b"
        r"|\b(any ?more|any longer)\b|\bfor good\b|\buntil\b",
        r"\bstanding\b|\brules?\b|\bhabit\b|\bkeep (that|this|it) in mind\b"
        r"|\bremember (that|to|this)\b|\bnote that\b|\bfyi\b|\bjust so you know\b|\bheads up\b",
        r"\b(always|never|ever|usually|generally|consistently|each time|every time)\b",
    ),
    # Directives at the assistant, however they are phrased.
    "directive": _family(
        r"\byou (must|should|shall|need to|have to|are to|will|'ll|can|could|may|might want to)\b",
        r"\b(please|pls|plz|make sure|be sure|ensure|avoid|stop|skip|don'?t|do not|no more|only"
        r"|stick to|switch to|prefer\w*|rather|instead|i'?d like you|i want you|i need you|let'?s)\b",
        r"\b(reply|replies|replying|respond\w*|responses?|answer(s|ing)?"
        r"|talk(ing)? to me|speak(ing)? to me|write to me|with me|to me)\b",
        # a short command opening the message: "Keep it PG.", "Be nice.", "Less fluff.", "Stay on topic."
        # (style verbs only: task verbs such as "write", "give", "make" open one-off requests)
        r"^\W*(keep|be|stay|cut|tone|mind|less|more|no|loosen|chill"
        r"|quit|drop|speak|sound|act|omit|lose|ditch|lay off|switch)\b",
    ),
    # Tone, register, persona.
    "tone_persona": _family(
        r"\b(tone|formal\w*|informal|casual\w*|polite\w*|friendly|playful\w*|blunt\w*|direct|honest|serious\w*|cheerful|sarcas\w*|professional\w*|pleasantries|sugarcoat\w*|puns?|humou?r\w*|jokes?|warm\w*|rude\w*|kind\w*)\b",
        r"\b(pretend\w*|act(ing)?|role|roleplay|persona|character|voice|style|impersonat\w*)\b"
        r"|\b(like|as) (a|an|if|though|my)\b|\bin the (voice|style|manner) of\b",
    ),
    # Format, layout, typography, units.
    "format": _family(
        r"\b(outputs?|whitespace|spaces?|format\w*|bullet\w*|numbered|lists?|tables?|markdown|json"
        r"|yaml|xml|html|csv|bold|italics?|headings?|headers?|code|backticks?|emojis?|emoticons?"
        r"|caps|capitals|capital letters?|capitali[sz]\w*|lower ?case|upper ?case|title ?case"
        r"|punctuation|commas?|exclamation\w*|quotes?|quotation|spelling|british|american|grammar)\b",
        r"\b(units?|metric|imperial|celsius|fahrenheit|kelvin|currency|dollars?|euros?|pounds?|yen|dates?"
        r"|yyyy|mm|dd|time ?zones?|cet|utc|gmt|24-hour|12-hour|am/pm|decimal\w*|numbers?|numerals?|digits?)\b",
        r"\b(summary|summaries|tl;?dr|disclaimer|citations?|sources?|references?|footnotes?|examples?|explanations?|steps?|outline|prose|paragraphs?|sentences?|words?|lines?|letters?|characters?|syllables?)\b",
    ),
    # Language of the replies.
    "language": _family(
        r"\b(english|french|spanish|german|italian|portuguese|chinese|mandarin|cantonese|japanese|korean|russian|arabic|hindi|dutch|swedish|norwegian|danish|finnish|polish|turkish|greek|latin|hebrew|vietnamese|thai|indonesian|ukrainian|czech|romanian|hungarian|swahili|esperanto|language|languages|translat\w*|dialect|slang|emoji-only)\b",
    ),
    # Length and amount.
    "length": _family(
        r"\b(length|lengthy|long|longer|short|shorter|brief\w*|concise\w*|succinct\w*|terse\w*"
        r"|verbose|wordy|detailed|simple|simpler|simply|plain|jargon|elaborate|limit\w*|maximum"
        r"|minimum|max|min|at most|at least|no more than|fewer than|less than|under|over|exactly)\b",
        r"\b\d+\b",
    ),
    # Openings, closings and sign-offs.
    "open_close": _family(
        r"\bsign\w*\b|\bsignature\b|\b(start|begin|end|finish|open|close|conclude|wrap|prefix|suffix|append|greet\w*|salutation)\w*\b|\bp\.?s\.?\b",
    ),
    # Standing facts about the user that later replies should respect.
    "user_facts": _family(
        r"\b(call|address|refer to|name) me\b|\bmy (name|pronouns?|nickname|title)\b|\bi'?m (called|named)\b",
        r"\bassume\b|\bi (live|work|study|teach|am based|reside)\b|\bi'?m (a|an|from|based"
        r"|vegetarian|vegan|pescatarian|allergic|diabetic|pregnant|blind|deaf|dyslexic|colou?r-?blind"
        r"|left-handed|new|learning|practi[cs]ing|studying|beginner|expert|retired|in)\b",
        r"\bi (don'?t|do not|can'?t|cannot) (eat|drink|read|see|hear|use|understand|speak)\b"
        r"|\bi('?m| am) not (a|an|good|fluent|familiar)\b|\bmy (diet|level|background"
        r"|audience|readers|kids?|students?|job|role|location|time ?zone|country|city)\b",
    ),
}


def gate_cues(text: str) -> tuple[str, ...]:
    """Names of the families whose wording occurs in ``text``: empty means stage 1 may stop it."""
    return tuple(name for name, rx in GATE_FAMILIES.items() if rx.search(text))
