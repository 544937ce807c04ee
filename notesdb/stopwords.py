"""Stopwords of the languages other than English that a message may be read as (``vocab.LANGUAGES``).

The stop word lists of the Snowball project (https://snowballstem.org, one ``stop.txt`` per
language under ``algorithms/``), folded like the index (``notesdb.text.words``: lower case, no
diacritics) and without their single letters (a query drops every one-letter token anyway).
English's own list is ``notesdb.query.STOPWORDS``.

The lists are used only for a message read as that language (``query.detect_language``): a
French message's "de", "la", "est" and "pour" are then no evidence of a note, as "of", "the",
"is" and "for" are not in an English one; an English message keeps "die", "van" or "se" ("iphone
se 2") as words.

The Snowball lists are covered by the 3-clause BSD License:

    Copyright (c) 2001, Dr Martin Porter,
    Copyright (c) 2002, Richard Boulton.
    All rights reserved.

    Redistribution and use in source and binary forms, with or without modification, are
    permitted provided that the following conditions are met:
    1. Redistributions of source code must retain the above copyright notice, this list of
       conditions and the following disclaimer.
    2. Redistributions in binary form must reproduce the above copyright notice, this list of
       conditions and the following disclaimer in the documentation and/or other materials
       provided with the distribution.
    3. Neither the name of the copyright holder nor the names of its contributors may be used to
       endorse or promote products derived from this software without specific prior written
       permission.

    THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS
    OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF
    MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE
    COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL,
    EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE
    GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED
    AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING
    NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED
    OF THE POSSIBILITY OF SUCH DAMAGE.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: the hook does not import typing
if TYPE_CHECKING:
    from typing import Final

__all__ = ["OTHER_STOPWORDS"]

#: Language code (``vocab.LANGUAGES``) -> its Snowball stopwords, folded.
OTHER_STOPWORDS: "Final[dict[str, frozenset[str]]]" = {
    "de": frozenset(
        """
        aber alle allem allen aller alles als also am an ander andere anderem anderen anderer
        anderes anderm andern anderr anders auch auf aus bei bin bis bist da damit dann der den des
        dem die das dass derselbe derselben denselben desselben demselben dieselbe dieselben
        dasselbe dazu dein deine deinem deinen deiner deines denn derer dessen dich dir du dies
        diese diesem diesen dieser dieses doch dort durch ein eine einem einen einer eines einig
        einige einigem einigen einiger einiges einmal er ihn ihm es etwas euer eure eurem euren
        eurer eures fur gegen gewesen hab habe haben hat hatte hatten hier hin hinter ich mich mir
        ihr ihre ihrem ihren ihrer ihres euch im in indem ins ist jede jedem jeden jeder jedes jene
        jenem jenen jener jenes jetzt kann kein keine keinem keinen keiner keines konnen konnte
        machen man manche manchem manchen mancher manches mein meine meinem meinen meiner meines mit
        muss musste nach nicht nichts noch nun nur ob oder ohne sehr sein seine seinem seinen seiner
        seines selbst sich sie ihnen sind so solche solchem solchen solcher solches soll sollte
        sondern sonst uber um und uns unse unsem unsen unser unses unter viel vom von vor wahrend
        war waren warst was weg weil weiter welche welchem welchen welcher welches wenn werde werden
        wie wieder will wir wird wirst wo wollen wollte wurde wurden zu zum zur zwar zwischen
        """.split()
    ),  # german
    "fr": frozenset(
        """
        au aux avec ce ces dans de des du elle en et eux il je la le leur lui ma mais me meme mes
        moi mon ne nos notre nous on ou par pas pour qu que qui sa se ses sur ta te tes toi ton tu
        un une vos votre vous etee etees etant suis es etes sont serai seras sera serons serez
        seront serais serait serions seriez seraient etais etait etions etiez etaient fus fut fumes
        futes furent sois soit soyons soyez soient fusse fusses fussions fussiez fussent ayant eu
        eue eues eus ai avons avez ont aurai aurons aurez auront aurais aurait aurions auriez
        auraient avais avait aviez avaient eut eumes eutes eurent aie aies ait ayons ayez aient
        eusse eusses eussions eussiez eussent ceci cela cet cette ici ils les leurs quel quels
        quelle quelles sans soi
        """.split()
    ),  # french
    "es": frozenset(
        """
        de la que el en los del se las por un para con no una su al lo como mas pero sus le ya este
        si porque esta entre cuando muy sin sobre tambien me hasta hay donde quien desde todo nos
        durante todos uno les ni contra otros ese eso ante ellos esto mi antes algunos unos yo otro
        otras otra tanto esa estos mucho quienes nada muchos cual poco ella estar estas algunas algo
        nosotros mis tu te ti tus ellas nosotras vosotros vosotras os mio mia mios mias tuyo tuya
        tuyos tuyas suyo suya suyos suyas nuestro nuestra nuestros nuestras vuestro vuestra vuestros
        vuestras esos esas estoy estamos estais estan estes estemos esteis esten estare estaras
        estara estaremos estareis estaran estaria estarias estariamos estariais estarian estaba
        estabas estabamos estabais estaban estuve estuviste estuvo estuvimos estuvisteis estuvieron
        estuviera estuvieras estuvieramos estuvierais estuvieran estuviese estuvieses estuviesemos
        estuvieseis estuviesen estando estado estada estados estadas estad he has ha hemos habeis
        han haya hayas hayamos hayais hayan habre habras habra habremos habreis habran habria
        habrias habriamos habriais habrian habia habias habiamos habiais habian hube hubiste hubo
        hubimos hubisteis hubieron hubiera hubieras hubieramos hubierais hubieran hubiese hubieses
        hubiesemos hubieseis hubiesen habiendo habido habida habidos habidas soy eres es somos sois
        son sea seas seamos seais sean sere seras sera seremos sereis seran seria serias seriamos
        seriais serian era eras eramos erais eran fui fuiste fue fuimos fuisteis fueron fuera fueras
        fueramos fuerais fueran fuese fueses fuesemos fueseis fuesen siendo sido tengo tienes tiene
        tenemos teneis tienen tenga tengas tengamos tengais tengan tendre tendras tendra tendremos
        tendreis tendran tendria tendrias tendriamos tendriais tendrian tenia tenias teniamos
        teniais tenian tuve tuviste tuvo tuvimos tuvisteis tuvieron tuviera tuvieras tuvieramos
        tuvierais tuvieran tuviese tuvieses tuviesemos tuvieseis tuviesen teniendo tenido tenida
        tenidos tenidas tened
        """.split()
    ),  # spanish
    "it": frozenset(
        """
        ad al allo ai agli all agl alla alle con col coi da dal dallo dai dagli dall dagl dalla
        dalle di del dello dei degli dell degl della delle in nel nello nei negli nell negl nella
        nelle su sul sullo sui sugli sull sugl sulla sulle per tra contro io tu lui lei noi voi loro
        mio mia miei mie tuo tua tuoi tue suo sua suoi sue nostro nostra nostri nostre vostro vostra
        vostri vostre mi ti ci vi lo la li le gli ne il un uno una ma ed se perche anche come dov
        dove che chi cui non piu quale quanto quanti quanta quante quello quelli quella quelle
        questo questi questa queste si tutto tutti ho hai ha abbiamo avete hanno abbia abbiate
        abbiano avro avrai avra avremo avrete avranno avrei avresti avrebbe avremmo avreste
        avrebbero avevo avevi aveva avevamo avevate avevano ebbi avesti ebbe avemmo aveste ebbero
        avessi avesse avessimo avessero avendo avuto avuta avuti avute sono sei siamo siete sia
        siate siano saro sarai sara saremo sarete saranno sarei saresti sarebbe saremmo sareste
        sarebbero ero eri era eravamo eravate erano fui fosti fu fummo foste furono fossi fosse
        fossimo fossero essendo faccio fai facciamo fanno faccia facciate facciano faro farai fara
        faremo farete faranno farei faresti farebbe faremmo fareste farebbero facevo facevi faceva
        facevamo facevate facevano feci facesti fece facemmo faceste fecero facessi facesse
        facessimo facessero facendo sto stai sta stiamo stanno stia stiate stiano staro starai stara
        staremo starete staranno starei staresti starebbe staremmo stareste starebbero stavo stavi
        stava stavamo stavate stavano stetti stesti stette stemmo steste stettero stessi stesse
        stessimo stessero stando
        """.split()
    ),  # italian
    "nl": frozenset(
        """
        de en van ik te dat die in een hij het niet zijn is was op aan met als voor had er maar om
        hem dan zou of wat mijn men dit zo door over ze zich bij ook tot je mij uit der daar haar
        naar heb hoe heeft hebben deze want nog zal me zij nu ge geen omdat iets worden toch al
        waren veel meer doen toen moet ben zonder kan hun dus alles onder ja eens hier wie werd
        altijd doch wordt wezen kunnen ons zelf tegen na reeds wil kon niets uw iemand geweest
        andere
        """.split()
    ),  # dutch
    "pt": frozenset(
        """
        de que do da em um para com nao uma os no se na por mais as dos como mas ao ele das seu sua
        ou quando muito nos ja eu tambem so pelo pela ate isso ela entre depois sem mesmo aos seus
        quem nas me esse eles voce essa num nem suas meu minha numa pelos elas qual lhe deles essas
        esses pelas este dele tu te voces vos lhes meus minhas teu tua teus tuas nosso nossa nossos
        nossas dela delas esta estes estas aquele aquela aqueles aquelas isto aquilo estou estamos
        estao estive esteve estivemos estiveram estava estavamos estavam estivera estiveramos esteja
        estejamos estejam estivesse estivessemos estivessem estiver estivermos estiverem hei ha
        havemos hao houve houvemos houveram houvera houveramos haja hajamos hajam houvesse
        houvessemos houvessem houver houvermos houverem houverei houveremos houverao houveria
        houveriamos houveriam sou somos sao era eramos eram fui foi fomos foram fora foramos seja
        sejamos sejam fosse fossemos fossem for formos forem serei sera seremos serao seria seriamos
        seriam tenho tem temos tinha tinhamos tinham tive teve tivemos tiveram tivera tiveramos
        tenha tenhamos tenham tivesse tivessemos tivessem tiver tivermos tiverem terei tera teremos
        terao teria teriamos teriam
        """.split()
    ),  # portuguese
    "sv": frozenset(
        """
        och det att en jag hon som han pa den med var sig for sa till ar men ett om hade de av icke
        mig du henne da sin nu har inte hans honom skulle hennes dar min man ej vid kunde nagot fran
        ut nar efter upp vi dem vara vad over an dig kan sina ha mot alla under nagon eller allt
        mycket sedan ju denna sjalv detta at utan varit hur ingen mitt ni bli blev oss din dessa
        nagra deras blir mina samma vilken er sadan blivit dess inom mellan sadant varfor varje
        vilka ditt vem vilket sitt sadana vart dina vars ert era vilkas
        """.split()
    ),  # swedish
    "da": frozenset(
        """
        og jeg det at en den til er som pa de med han af for ikke der var mig sig men et har om vi
        min havde ham hun nu over da fra du ud sin dem os op man hans hvor eller hvad skal selv her
        alle vil blev kunne ind nar vaere dog noget ville jo deres efter ned skulle denne end dette
        mit ogsa under have dig anden hende mine alt meget sit sine vor mod disse hvis din nogle hos
        blive mange ad bliver hendes vaeret thi jer sadan
        """.split()
    ),  # danish
    "nb": frozenset(
        """
        og jeg det at en et den til er som pa de med han av ikke ikkje der sa var meg seg men ett
        har om vi min mitt ha hadde hun na over da ved fra du ut sin dem oss opp man kan hans hvor
        eller hva skal selv sjol her alle vil bli ble blei blitt kunne inn nar vaere kom noen noe
        ville dere deres kun ja etter ned skulle denne for deg si sine sitt mot meget hvorfor dette
        disse uten hvordan ingen din ditt blir samme hvilken hvilke sann inni mellom hver hvem vors
        hvis bade bare enn fordi mange ogsa slik vaert bae begge siden dykk dykkar dei deira deires
        deim di eg ein eit eitt elles honom hja ho hoe henne hennar hennes hoss hossen ingi inkje
        korleis korso kva kvar kvarhelst kven kvi kvifor me medan mi mine mykje no nokon noka nokor
        noko nokre sia sidan so somt somme um upp vere vore verte vort varte vart
        """.split()
    ),  # norwegian
}
