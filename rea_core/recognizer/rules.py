"""Stage 1 of the Instruction Recognizer (REA paper, sections 3.3 and A.4): the rule filter.

A *persistence marker* ("from now on", "in all your replies") together with a reply-shaping verb
is accepted as global by the rules alone; a revocation ("you can stop ...") is labeled
``revoke``; an input is stopped as "not global" only when no cue family of the recall-safe gate
(``gate.py``) fires. Everything else is deferred to stage 2 (``recognize.py``).
"""

from __future__ import annotations

import re

from .addressee import content_frame
from .gate import gate_cues
from .labels import GLOBAL, OTHER, REVOKE
from .lexicons import LANGS as OTHER_LANGS
from .lexicons import class_spans
from .sentences import message_language


def _rx(*patterns: str) -> list[tuple[str, re.Pattern]]:
    return [(p, re.compile(p, re.IGNORECASE)) for p in patterns]


FRAME_CUE = "frame:"  # cue prefix naming an addressee frame (``addressee.content_frame``)
_CONFUSED = ("es", "pt")  # langdetect's one frequent confusion among the covered languages, in short texts
PROHIBITION = "standing prohibition"  # cue of a "stop X-ing" wish; REA lets it lift a held entry it contradicts
LANG_CUE = "lang:"  # cue prefix naming the language of an input the English rules leave to stage 2

# Wording that says an instruction lasts beyond this turn.
PERSISTENCE_CUES = _rx(
    r"\bfrom (now|here|this point)( on(wards?)?)?\b",
    r"\bgoing forward\b",
    # "in future" opening a wish ("Also, in future keep recipe answers short"), not a question about the world
    r"(^|[,.;:!?]\s*|\b(and|also|so|but)\s+)in (the )?future,?\s+(please |always |never |just |only )?(keep|use"
    r"|give|write|answer|reply|respond|make|be|stop|avoid|include|add|put|call|start|end|skip|tell|don't|do not)\b",
    r"\bhenceforth\b",
    r"\bfor the (rest|remainder) of (this|our|the) (conversation|chat|session|discussion)\b",
    r"\b(for|during|throughout) (the|this|our) (whole |entire )?(conversation|chat|session|discussion)\b",
    r"\b(in|for) (all|every|each|any) (of )?(your )?(future |subsequent |later "
    r"|following |remaining )?(responses?|answers?|repl(y|ies)|messages?|outputs?)\b",
    r"\b(every|each) (time you \w+|(response"
    r"|answer|reply|message) (you (give|write|send)|from now))\b",
    r"\buntil I (say|tell you) (otherwise|to stop)\b",
    r"\bwhenever you \w+\b",
    r"\b(all|every|each) (of )?your (future |subsequent )?(responses|answers|replies|messages)\b",
)

# An imperative aimed at the assistant: a reply-shaping verb opening a clause, or "you must/should".
DIRECTIVE_CUES = _rx(
    r"(^|[,.;:!-]\s*|\b(on|forward|future|please|and|just)\s+)(respond|answer|reply|write|speak|talk|use"
    r"|start|begin|end|finish|include|add|avoid|keep|limit|format|wrap|call me|address me"
    r"|refer to me|act|pretend|be|stay|make|put|sign|translate|don'?t|do not|never|always|only"
    r"|give|tell|show|send|list|explain|stick|assume|skip|drop|cut|tighten|remember)\b",
    r"\byou (must|should|need to|have to|are to|will need to)\b",
    # a request to the assistant ("from here on, could you mark ...", "can you write dates as ...")
    r"\b(could|can|would|will) you (please |pls |also |just |always )?(respond|answer|reply|write|use|keep|mark|label"
    r"|group|flag|note|add|include|give|put|start|end|format|convert|list|explain|call|address|avoid|skip|stick|be)\b",
)

# Weaker cues: a constraint that may or may not be meant to last; the classifier decides.
CONSTRAINT_CUES = _rx(
    r"\balways\b",
    r"\bnever\b",
    r"\b(every|each) (time|response|answer|reply|sentence|paragraph)\b",
    r"\b(in|using|use) (all )?(lower ?case|upper ?case|capital letters|all caps|caps|title case)\b",
    r"\b(lower ?case|upper ?case|all caps|capital letters)\b",
    r"\b(respond|answer|reply|write|speak|talk) (only |just )?(in|with|using) (english"
    r"|french|spanish|german|chinese|japanese|italian|portuguese|russian|korean"
    r"|arabic|hindi|json|markdown|bullet|haiku|rhymes?|a single|one|short|plain)\b",
    r"\b(no more than|at most|under|fewer than|less than|at least"
    r"|exactly) \d+ (words|sentences|paragraphs|bullet points|lines|characters)\b",
    r"\b(start|begin|end|finish) (each|every|all|your) (of )?(your )?(responses?"
    r"|answers?|repl(y|ies)|sentences?|messages?)\b",
    r"\b(don't|do not|never) (use|say|mention|include|write|add|apologi[sz]e|respond|answer)\b",
    r"\bcall me\b|\baddress me as\b|\brefer to me as\b",
    r"\b(act|behave|respond|talk) (as|like) (a|an|my)\b|\bpretend (to be|you are)\b",
    r"\bwrap (your|the|every|each) (entire )?(response|answer|reply|output)\b",
    r"\bkeep (your|all|the) (responses|answers|replies)\b",
    r"\bplease (answer|respond|reply|write|use|keep|be)\b",
    r"\b(in|as) (valid )?json\b|\bbullet points?\b|\bno commas\b|\bwithout (using )?(any )?commas\b",
)

# A standing fact about the user (health, diet, expertise, language, location) ...
USER_FACT = re.compile(
    r"\bi('m| am) (\w+ly |[\w-]+ [\w-]+ |[\w-]+ )?(a|an|allergic|vegan|vegetarian|pescatarian|pregnant|diabetic|on"
    r"|blind|deaf|dyslexic|colou?r-?blind|lactose|gluten|new to|learning|based in|from|\w+ intolerant)\b"
    r"|\bi (have|'ve got) (celiac|coeliac|diabetes"
    r"|\w+ (disease|allergy|allergies|intolerance|condition))\b|\bi (can't|cannot|don't|do not) (have|eat|drink"
    r"|tolerate|read|see|hear)\b|\bi (teach|work as|work in|live in)\b|\bi'?ve never\b|\bmy first language\b"
    # a condition named by its acronym or medical suffix ("I have ADHD", "I have dyslexia"), hard of hearing,
    # means the user or their household lacks ("we don't have a car")
    r"|\bi (have|'ve got) (\w+ )?([A-Z]{2,5}|\w+(ia|ism|itis|osis|phobia))\b|\bhard of hearing\b"
    r"|\b(i|we) (don't|do not|can't|cannot) (own|have|drive|afford|use)\b"
    r"|\bmy (monthly )?(budget|income|salary|rent)\b|\bi (use|rely on) (a |an )?(screen ?reader|wheelchair"
    r"|hearing aids?"
    r"|cane|walker|magnifier)\b",
    re.IGNORECASE,
)
# ... with what it means for later replies ("keep that in mind", "so you can skip ...").
FACT_CONSEQUENCE = re.compile(
    r"\b(keep|bear) (that|this|it) in mind\b|\btake (that|this|it) into account\b|\bso\b[^.?!]*\b(you|nothing"
    r"|skip|assume|please|don't|no|never|avoid)\b|\byou can\b|\bfeel free\b|\bwith me\b|\b(reflect|respect)"
    r" (that|this)\b|\b(any|all|every)( \w+)? (you|your)\b|\bin (anything|everything) you\b|\bwhenever we\b"
    r"|\bi (can't|cannot) (have|eat|drink)\b|\bin mind\b|\byou (really )?(don't|do not) need to\b|\bno need to\b"
    r"|\b(really )?helps? me\b|\bso\b[^.?!]*\b(should|must|needs? to|has to|have to|think|plan|consider|stick)\b"
    r"|\bfactor (that|this|it) in"
    r"|\bremember\b|\bfor context\b|\bso\b[^.?!]*\bfor me\b|\b(a no|off limits|out of the question"
    r"|not an option) for me\b",
    re.IGNORECASE,
)


# "Stop adding a summary at the end of your replies": a bare "stop X-ing" aimed at a habit of the
# replies (their scope, or "so many" / "for everything") forbids it from now on; it lifts nothing.
_BARE_STOP = re.compile(
    r"^\W*(please |pls |plz |ok,? |and |also |just |so |in general,? |generally,? )?stop \w+ing\b"
    r"|[,.;!]\s*(please |pls |plz |and |also |just |so |in general,? |generally,? )?stop \w+ing\b"
    # asked of the assistant: "Could you (please) stop ...", "I'd like you to stop ..."
    r"|\b((could|can|would|will) you (please |pls |just )?|i('d| would) (like|prefer|love) (it if )?you (to )?"
    r"|i (want|need) you to )stop \w+ing\b",
    re.IGNORECASE,
)
_HABIT = re.compile(
    r"\byour (\w+ ){0,2}(answers?|repl(y|ies)|responses?|messages?|explanations?)\b"
    r"|\b(so many|so much|everything|all the time|every time|constantly|everywhere)\b"
    r"|\b(every|each|all) (\w+ )?(answers?|repl(y|ies)|responses?|messages?)\b|\bstop \w+ing me\b"
    r"|\bur (answers|replies|responses|messages)\b|\bwhen(ever)? i ask\b",
    re.IGNORECASE,
)
_LIFT = re.compile(r"\byou (can|may)\b|\bno longer\b|\bforget\b|\bignore\b|\bgo back\b|\bany ?more\b", re.I)


# How often a wish applies; with the assistant's later replies (plural) or the user as its scope, a
# standing wish: "Please always include an example in your explanations", "Never recommend X to me",
# "I want every answer to start with a TL;DR". "Each sentence in your response" is one reply's constraint.
_FREQUENCY = re.compile(r"\b(always|never|every time|each time|whenever|do?n'?t ever|do not ever)\b", re.I)
_LATER_REPLIES = re.compile(
    r"\b(your|all (of )?(your|the)|any of your) (\w+ ){0,2}(answers|replies|responses|explanations|suggestions"
    r"|recommendations|examples|outputs)\b|\byou (give|send|show|suggest|recommend|write for|tell) me\b"
    r"|\b(to|with|for) me\b",
    re.IGNORECASE,
)
# Naming the user is standing by nature: "Call me Sam.", "I'd like you to call me Dani."
_NAMING = re.compile(
    r"(^\W*(please |so |ok,? |and )?|\b(you to|please|and|just|always) )(call|address|refer to) me\b", re.IGNORECASE
)
_EVERY_REPLY = re.compile(
    r"\b(every|each) (single )?(answer|reply|response|explanation|suggestion)\b"
    r"|\b(in|for|across) your (\w+ ){0,2}(answers|replies|responses|explanations)\b"
    r"|\b(every|each|any) (\w+ ){1,2}you (give|send|show|write|suggest|recommend)( me)?\b",
    re.IGNORECASE,
)


# "Your answers are way too chatty. Tighten them up.": a complaint about the replies in general is a standing wish.
_REPLY_COMPLAINT = re.compile(
    r"\byour (\w+ ){0,2}(answers|replies|responses|explanations)\b (are|have been|keep|get|seem|feel)\b[^.?!]{0,30}"
    r"\b(too|so|overly|way|really|a bit|kind of|pretty|always)\b",
    re.IGNORECASE,
)

# "Please always reply in bullet points", "Could you always give me TypeScript?": a frequency word in a
# request to the assistant. Not a question about the world ("Will Python always ...?") or a resolution.
_ALWAYS_REQUEST = re.compile(
    r"(^\W*(please|pls|plz|and|also|just|so|ok,?) |[.;!]\s*(please |pls |and |also |just |so )?"
    r"|\b(could|can|would|will) you (please )?)(always|never|don'?t ever)\s+(respond|answer|reply|write|use|give"
    r"|include|add|start|end|put|show|tell|explain|keep|format|call|address|mention|suggest|recommend|say|assume)\b",
    re.IGNORECASE,
)
_WORLD_QUESTION = re.compile(r"^\W*(will|is|are|does|do|did|has|have|was|were|why|how|what|when)\b[^.!]*\?", re.I)
_CONCESSION = re.compile(r"\bbut\b[^.?!]*\b(fine|ok|okay|alright|good|no problem|whatever)\b", re.IGNORECASE)


def standing_scope(text: str) -> bool:
    """A frequency word with the assistant's later replies as scope, or every one of its replies."""
    if _NAMING.search(text):
        return True
    return bool(_FREQUENCY.search(text) and _LATER_REPLIES.search(text)) or bool(_EVERY_REPLY.search(text))


def standing_prohibition(text: str) -> bool:
    """ "stop X-ing" about a habit of the replies, with nothing that lifts an earlier wish ("you can stop")."""
    return bool(_BARE_STOP.search(text) and _HABIT.search(text)) and not _LIFT.search(text)


def standing_fact(text: str) -> bool:
    """A durable fact about the user stated with its consequence for later answers, not asked as a question."""
    return "?" not in text and bool(USER_FACT.search(text)) and bool(FACT_CONSEQUENCE.search(text))


# The user lifts an earlier instruction.
REVOKE_CUES = _rx(
    r"\byou (can|may) stop\b",
    r"\bstop (answering|responding|replying|writing|using|doing|starting"
    r"|beginning|ending|adding|including|speaking|talking|calling me)\b",
    r"\bno longer (need|have) to\b",
    r"\b(don't|do not) need to .{1,60}\b(any ?more|any longer)\b",
    r"\b(forget|ignore|drop|cancel) (about )?(my|the|that|those|these|all|any)( of)?( my| the| those"
    r"| these)? (earlier |previous |prior |last |old )?(instructions?|rules?|constraints?|requests?)\b",
    r"\bgo back to (normal|your usual|the usual)\b",
    r"\bforget (what|everything|all) (I|I've|I have) (said|told you|asked)\b",
    r"\b(forget|ignore|drop|ditch|lose|cancel) (about )?(the|my|that|this) .{1,40}\b(thing"
    r"|rule|instruction|request|bit|part|voice|accent|persona|act|style|format)\b",
    r"\bstop (shouting|yelling|saying|putting|signing|formatting|calling|that|it)\b",
)

# The user swaps a standing instruction for another ("actually, use capitals again"); acted on
# only when Instructional Memory holds an entry it refers to (``is_replacement``, REAStrategy).
_BACK_TO = r"\b(go|switch|change|get) back to\b"
REPLACE_CUES = _rx(
    r"^\W*(actually|on second thought|scratch that|change of plans?|wait)\b",
    _BACK_TO,
    r"\b(again|instead)\b",
)
_REDO = re.compile(r"\b(it|that|this|them) (again|instead)\b|\btry again\b|\bonce again\b", re.IGNORECASE)


def matching(rules: list[tuple[str, re.Pattern]], text: str) -> list[str]:
    return [pattern for pattern, rx in rules if rx.search(text)]


def rule_stage(text: str, lang: str | None = None) -> tuple[str | None, tuple[str, ...]]:
    """Stage 1. Returns (label or None when the classifier must decide, cues that fired).

    "other" only when no gate family (``gate.py``) fires: stopping a real instruction here is
    the one error stage 2 cannot repair, so anything that may shape replies is passed on. The
    rules are English: an input in another covered language (``lang``, else langdetect's reading)
    where a word class of that language occurs goes to stage 2, with the cue ``lang:<code>``
    (``multilingual.py`` decides it).
    """
    lang = lang or message_language(text)
    if lang in OTHER_LANGS:
        # None of its word classes: langdetect misread English ("Call me Sam." as Italian). Between Spanish
        # and Portuguese, which it confuses in short texts, the one whose classes say more.
        fired = {other: len(class_spans(text, other)) for other in OTHER_LANGS}
        if fired[lang]:
            if lang in _CONFUSED:
                lang = max(_CONFUSED, key=lambda other: (fired[other], other == lang))
            return None, (f"{LANG_CUE}{lang}",)
    revoke = matching(REVOKE_CUES, text)
    persistence = matching(PERSISTENCE_CUES, text)
    prohibition = standing_prohibition(text)
    if revoke and not persistence and not prohibition:  # "stop using commas from now on" sets a rule, it lifts none
        return REVOKE, tuple(revoke)
    directive = matching(DIRECTIVE_CUES, text)
    constraint = matching(CONSTRAINT_CUES, text)
    spans = [m.span() for _, rx in PERSISTENCE_CUES + CONSTRAINT_CUES for m in rx.finditer(text)]
    # Content of a task or a rule for others ("write a story where, from now on, ..."): the rules
    # do not decide; stage 2 does, its score down-weighted (``recognize.FRAME_WEIGHT``).
    frame = content_frame(text, spans)
    if frame == "self" and directive:  # "keep recipes in grams from now on, I bake by weight": the assistant's wish
        frame = None
    if persistence and (directive or constraint) and frame is None:
        return GLOBAL, tuple(persistence + constraint)
    complaint = bool(_REPLY_COMPLAINT.search(text)) and not _CONCESSION.search(text)
    if frame is None and _ALWAYS_REQUEST.search(text) and not _WORLD_QUESTION.search(text):
        return GLOBAL, ("always/never asked of the assistant",)
    scoped = complaint or bool((directive or constraint) and standing_scope(text))
    if frame is None and "?" not in text and scoped:
        return GLOBAL, ("complaint about the replies" if complaint else "the assistant's later replies as scope",)
    if prohibition and frame in (None, "self"):  # "Please stop X-ing, I prefer Y": the user's preference is theirs
        return GLOBAL, (PROHIBITION,)
    # a fact's consequence often has its own subject ("so times should match NZ"): only content frames veto it
    if frame in (None, "self", "third-party") and standing_fact(text):
        return GLOBAL, ("standing fact",)
    cues = tuple(persistence + constraint) + tuple(f"gate:{name}" for name in gate_cues(text))
    if cues:
        return None, (*cues, *((f"{FRAME_CUE}{frame}",) if frame else ()))
    return OTHER, ()


def is_replacement(text: str) -> bool:
    """A wish that replaces an earlier standing instruction rather than adding one.

    Needs a replacement cue and a directive, and is not a redo of one reply ("write it again",
    "try again") or a question.
    """
    if _REDO.search(text) or text.strip().endswith("?") or not matching(REPLACE_CUES, text):
        return False
    return bool(matching(DIRECTIVE_CUES, text) or matching(CONSTRAINT_CUES, text) or re.search(_BACK_TO, text, re.I))


def rule_priors(texts: list[str]) -> list[float]:
    """Stage 1 alone as scores: 1 global, 0 not, 0.5 where stage 1 defers (the unsure inputs, queued first)."""
    labels = [rule_stage(text)[0] for text in texts]
    return [0.5 if label is None else 1.0 if label == GLOBAL else 0.0 for label in labels]
